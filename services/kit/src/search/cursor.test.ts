import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { shiftByDuration } from "./duration.ts";

describe("cursor", () => {
  it("round-trips", () => {
    const c = {
      sort: "customAttributes:size",
      dir: "DESC" as const,
      value: { a: [1, "x"] },
      id: "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
    };
    expect(decodeCursor(encodeCursor(c), "/after")).toEqual(c);
  });

  it.each([
    "",
    "!!!",
    Buffer.from("not json").toString("base64url"),
    Buffer.from('["a","UP",1,"x"]').toString("base64url"),
    "a".repeat(5000),
  ])("rejects %j", (raw) => {
    expect(() => decodeCursor(raw, "/after")).toThrow(
      expect.objectContaining({ code: "INVALID_CURSOR", field: "/after" }),
    );
  });
});

describe("shiftByDuration", () => {
  const now = new Date("2026-03-31T12:00:00.000Z");
  it.each([
    ["-P1D", "2026-03-30T12:00:00.000Z"],
    ["P1W", "2026-04-07T12:00:00.000Z"],
    ["PT1H30M", "2026-03-31T13:30:00.000Z"],
    ["-PT0.5S", "2026-03-31T11:59:59.500Z"],
    ["\u2013P1D", "2026-03-30T12:00:00.000Z"],
    ["P1Y", "2027-03-31T12:00:00.000Z"],
  ])("%s", (d, expected) => {
    expect(shiftByDuration(d, now, "/x").toISOString()).toBe(expected);
  });

  it.each(["P", "PT", "1D", "P1H", "-", "P1DT"])("rejects %s", (d) => {
    expect(() => shiftByDuration(d, now, "/x")).toThrow(
      expect.objectContaining({ code: "INVALID_DURATION" }),
    );
  });
});
