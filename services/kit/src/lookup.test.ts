import { describe, expect, it } from "vitest";
import { lookupTable } from "./lookup.ts";

describe("lookupTable", () => {
  const t = lookupTable({ A: 1, B: 2 });
  it("finds its own entries", () => {
    expect([t.A, t.B]).toEqual([1, 2]);
  });
  it.each(["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "C"])(
    "finds nothing for %s",
    (k) => {
      expect(t[k]).toBeUndefined();
    },
  );
  it("cannot be changed", () => {
    expect(() => {
      (t as Record<string, number>).C = 3;
    }).toThrow();
  });
});
