import { describe, expect, it } from "vitest";
import { calendarDate, defaultConfiguration, replaceConfiguration } from "./configuration.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

let n = 0;
const c: ChangeContext = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => `gen${++n}` };
const current = () => defaultConfiguration("carrier-1", "config-1", new Date("2026-11-01T00:00:00.000Z"));
const put = (extra: JsonObject = {}) =>
  replaceConfiguration(current(), { version: 1, carrierRef: "carrier-1", returnLabel: true, ...extra }, c);
const country = (days: JsonObject[], provinces: JsonObject[] = []): JsonObject => ({
  country: "DE",
  nonDeliveryDays: days,
  recurringNonDeliveryWeekdays: ["SUNDAY"],
  nonDeliveryDaysPerProvince: provinces,
});

it("the default configuration: version 1, no labels, no weighing, empty lists", () => {
  expect(current()).toEqual({
    id: "config-1",
    version: 1,
    created: "2026-11-01T00:00:00.000Z",
    lastModified: "2026-11-01T00:00:00.000Z",
    carrierRef: "carrier-1",
    returnLabel: false,
    mustBeWeighed: false,
    countryServiceMappings: [],
    nonDeliveryDaysPerCountryAndProvince: [],
  });
});

it("calendarDate: real dates only; a date-time gives its date", () => {
  expect(calendarDate("2028-02-29")).toBe("2028-02-29");
  expect(calendarDate("2026-12-31T23:00:00.000Z")).toBe("2026-12-31");
  for (const bad of ["2026-02-29", "2026-02-30", "2026-13-01", "2026-1-01", "x", 20260101, undefined]) {
    expect(calendarDate(bad), String(bad)).toBeUndefined();
  }
});

describe("replaceConfiguration (PUT)", () => {
  it("replaces every field: what the body omits is gone; id, created and carrierRef stay", () => {
    const full = put({
      mustBeWeighed: true,
      serviceUrl: "u",
      trackAndTraceUrl: "t",
      useEconomyService: true,
      id: "other",
      created: "1999-01-01T00:00:00Z",
    });
    expect(full).toMatchObject({
      id: "config-1",
      created: "2026-11-01T00:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      version: 2,
      carrierRef: "carrier-1",
      returnLabel: true,
      mustBeWeighed: true,
      serviceUrl: "u",
      trackAndTraceUrl: "t",
      useEconomyService: true,
    });
    const slim = replaceConfiguration(full, { version: 2, returnLabel: false }, c);
    expect(slim).toEqual({
      id: "config-1",
      version: 3,
      created: "2026-11-01T00:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      carrierRef: "carrier-1",
      returnLabel: false,
      mustBeWeighed: false,
      countryServiceMappings: [],
      nonDeliveryDaysPerCountryAndProvince: [],
    });
  });

  it("names the current version (400 / 409), the path's carrier, and returnLabel", () => {
    expect(() => replaceConfiguration(current(), { returnLabel: true }, c)).toThrow(
      expect.objectContaining({ kind: "invalid", code: "VERSION_REQUIRED" }),
    );
    expect(() => replaceConfiguration(current(), { version: 5, returnLabel: true }, c)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 5, version: 1 }),
    );
    expect(() => put({ carrierRef: "carrier-2" })).toThrow(
      expect.objectContaining({ code: "CARRIER_REF_MISMATCH" }),
    );
    expect(() => replaceConfiguration(current(), { version: 1 }, c)).toThrow(
      expect.objectContaining({ code: "RETURN_LABEL_REQUIRED" }),
    );
  });

  it("stores non-delivery days as YYYY-MM-DD, SINGLE unless said; a wrong date is a 400 naming it", () => {
    const out = put({
      nonDeliveryDaysPerCountryAndProvince: [
        country(
          [
            { nonDeliveryDay: "2026-12-25T00:00:00.000Z", nonDeliveryType: "RECURRING" },
            { nonDeliveryDay: "2026-12-31" },
          ],
          [
            {
              province: "BY",
              nonDeliveryDays: [{ nonDeliveryDay: "2026-01-06" }],
              recurringNonDeliveryWeekdays: [],
            },
          ],
        ),
      ],
    });
    const de = out.nonDeliveryDaysPerCountryAndProvince[0] as JsonObject;
    expect(de.nonDeliveryDays).toEqual([
      { nonDeliveryDay: "2026-12-25", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2026-12-31", nonDeliveryType: "SINGLE" },
    ]);
    expect((de.nonDeliveryDaysPerProvince as JsonObject[])[0]?.nonDeliveryDays).toEqual([
      { nonDeliveryDay: "2026-01-06", nonDeliveryType: "SINGLE" },
    ]);
    expect(() =>
      put({ nonDeliveryDaysPerCountryAndProvince: [country([{ nonDeliveryDay: "2026-02-30" }])] }),
    ).toThrow(
      expect.objectContaining({
        code: "INVALID_DATE",
        field: "/nonDeliveryDaysPerCountryAndProvince/0/nonDeliveryDays/0/nonDeliveryDay",
      }),
    );
    expect(() =>
      put({
        nonDeliveryDaysPerCountryAndProvince: [
          country(
            [],
            [
              {
                province: "BY",
                nonDeliveryDays: [{ nonDeliveryDay: "x" }],
                recurringNonDeliveryWeekdays: [],
              },
            ],
          ),
        ],
      }),
    ).toThrow(
      expect.objectContaining({
        field:
          "/nonDeliveryDaysPerCountryAndProvince/0/nonDeliveryDaysPerProvince/0/nonDeliveryDays/0/nonDeliveryDay",
      }),
    );
  });

  it("pick-up times and price ranges must make sense", () => {
    const t = (hour: number, minute: number) => ({ hour, minute });
    expect(put({ defaultPickUpTime: { start: t(9, 0), end: t(9, 0) } }).defaultPickUpTime).toBeDefined();
    expect(() => put({ defaultPickUpTime: { start: t(18, 0), end: t(9, 0) } })).toThrow(
      expect.objectContaining({ code: "INVALID_PICK_UP_TIME" }),
    );
    expect(() => put({ defaultPickUpTime: { start: t(24, 0), end: t(9, 0) } })).toThrow(
      expect.objectContaining({ code: "INVALID_TIME_OF_DAY" }),
    );
    expect(() => put({ defaultPickUpTime: { start: t(9, 0.5), end: t(10, 0) } })).toThrow(
      expect.objectContaining({ kind: "invalid" }),
    );
    const range = (from: number, to: number) => ({
      priority: 1,
      priceRange: { from, to, currency: "EUR", decimalPlaces: 2 },
    });
    expect(put({ thresholdPriceValue: range(0, 100) }).thresholdPriceValue).toEqual(range(0, 100));
    expect(() => put({ thresholdPriceValue: range(101, 100) })).toThrow(
      expect.objectContaining({ code: "INVALID_PRICE_RANGE" }),
    );
  });

  it("mappings keep their ids (unique), get one when they have none, and follow the mapping rules", () => {
    const m = (extra: JsonObject = {}) => ({
      source: { countryCode: "DE" },
      destinations: [{ countryCode: "DE" }],
      ...extra,
    });
    const out = put({ countryServiceMappings: [m({ id: "a" }), m()] });
    expect(out.countryServiceMappings.map((x) => x.id)).toEqual(["a", expect.stringMatching(/^gen/)]);
    expect(() => put({ countryServiceMappings: [m({ id: "a" }), m({ id: "a" })] })).toThrow(
      expect.objectContaining({ code: "DUPLICATE_MAPPING_ID", field: "/countryServiceMappings/1/id" }),
    );
    expect(() =>
      put({ countryServiceMappings: [m({ id: "a" }), m({ id: "b", countAsTransitDayBefore: "24:30" })] }),
    ).toThrow(expect.objectContaining({ field: "/countryServiceMappings/1/countAsTransitDayBefore" }));
    expect(() => put({ countryServiceMappings: Array.from({ length: 101 }, () => m()) })).toThrow(
      expect.objectContaining({ code: "TOO_MANY_MAPPINGS" }),
    );
  });
});
