import { expect, it } from "vitest";
import { putTransitTime } from "./transit-time.ts";

const c = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "tt" };
const later = { ...c, now: new Date("2026-11-26T10:00:00.000Z"), newId: () => "other" };

it("the first PUT creates version 1 whatever version it names; later ones name the current version", () => {
  const first = putTransitTime(undefined, { version: 7, calculationStrategy: "EARLIEST" }, c);
  expect(first).toEqual({
    created: true,
    config: {
      id: "tt",
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      calculationStrategy: "EARLIEST",
    },
  });
  const second = putTransitTime(first.config, { version: 1, calculationStrategy: "LATEST" }, later);
  expect(second).toEqual({
    created: false,
    config: {
      ...first.config,
      version: 2,
      lastModified: "2026-11-26T10:00:00.000Z",
      calculationStrategy: "LATEST",
    },
  });
  expect(() => putTransitTime(second.config, { version: 1, calculationStrategy: "LATEST" }, later)).toThrow(
    expect.objectContaining({ kind: "version_conflict", requestVersion: 1, version: 2 }),
  );
});

it("400 for a missing version or a strategy other than EARLIEST and LATEST", () => {
  expect(() => putTransitTime(undefined, { calculationStrategy: "EARLIEST" }, c)).toThrow(
    expect.objectContaining({ code: "VERSION_REQUIRED" }),
  );
  for (const s of ["FASTEST", "earliest", "", 1, undefined]) {
    expect(
      () => putTransitTime(undefined, { version: 0, calculationStrategy: s as never }, c),
      String(s),
    ).toThrow(
      expect.objectContaining({ code: "INVALID_CALCULATION_STRATEGY", field: "/calculationStrategy" }),
    );
  }
});
