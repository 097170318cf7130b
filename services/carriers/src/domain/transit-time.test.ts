import { describe, expect, it } from "vitest";
import { putTransitTime } from "./transit-time.ts";
import type { Json } from "./types.ts";

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

describe("putTransitTime", () => {
  it.each([0, 1, 42])("the first PUT accepts version %i and creates version 1", (version) => {
    const { config, created } = putTransitTime(undefined, { version, calculationStrategy: "LATEST" }, c);
    expect(created).toBe(true);
    expect(config).toEqual({
      id: "tt",
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      calculationStrategy: "LATEST",
    });
  });

  it.each<Json>(["1", 1.5, null])(
    "the first PUT with version %j: 400 VERSION_REQUIRED at /version",
    (version) => {
      expect(() => putTransitTime(undefined, { version, calculationStrategy: "EARLIEST" }, c)).toThrow(
        expect.objectContaining({ kind: "invalid", code: "VERSION_REQUIRED", field: "/version" }),
      );
    },
  );

  it("later PUTs need a version, the current one (409 for lower and higher)", () => {
    const first = putTransitTime(undefined, { version: 0, calculationStrategy: "EARLIEST" }, c).config;
    expect(() => putTransitTime(first, { calculationStrategy: "LATEST" }, later)).toThrow(
      expect.objectContaining({ kind: "invalid", code: "VERSION_REQUIRED" }),
    );
    for (const version of [0, 2]) {
      expect(() => putTransitTime(first, { version, calculationStrategy: "LATEST" }, later)).toThrow(
        expect.objectContaining({ kind: "version_conflict", requestVersion: version, version: 1 }),
      );
    }
    const second = putTransitTime(first, { version: 1, calculationStrategy: "EARLIEST" }, later);
    expect(second.created).toBe(false);
    expect(second.config.version).toBe(2);
    expect(
      putTransitTime(second.config, { version: 2, calculationStrategy: "LATEST" }, later).config.version,
    ).toBe(3);
  });

  it("a later PUT keeps id and created even when the body names others; the current one is not changed", () => {
    const first = putTransitTime(undefined, { version: 0, calculationStrategy: "EARLIEST" }, c).config;
    const snapshot = structuredClone(first);
    const { config } = putTransitTime(
      first,
      {
        version: 1,
        calculationStrategy: "LATEST",
        id: "mine",
        created: "1999-01-01T00:00:00.000Z",
        lastModified: "1999-01-01T00:00:00.000Z",
      },
      later,
    );
    expect(config).toEqual({
      id: "tt",
      version: 2,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-26T10:00:00.000Z",
      calculationStrategy: "LATEST",
    });
    expect(first).toEqual(snapshot);
  });

  it.each<Json>(["LATEST ", "Latest", "FASTEST", null, ["EARLIEST"]])(
    "a later PUT with strategy %j: 400 INVALID_CALCULATION_STRATEGY",
    (calculationStrategy) => {
      const first = putTransitTime(undefined, { version: 0, calculationStrategy: "EARLIEST" }, c).config;
      expect(() => putTransitTime(first, { version: 1, calculationStrategy }, later)).toThrow(
        expect.objectContaining({
          kind: "invalid",
          code: "INVALID_CALCULATION_STRATEGY",
          field: "/calculationStrategy",
        }),
      );
    },
  );
});
