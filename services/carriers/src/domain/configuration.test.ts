import { describe, expect, it } from "vitest";
import { calendarDate, defaultConfiguration, replaceConfiguration } from "./configuration.ts";
import type { ChangeContext, Json, JsonObject } from "./types.ts";

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

describe("calendarDate", () => {
  it.each([
    ["2024-02-29", "2024-02-29"],
    ["2000-02-29", "2000-02-29"],
    ["2026-02-28", "2026-02-28"],
    ["2026-01-31", "2026-01-31"],
    ["2026-04-30", "2026-04-30"],
    ["2026-12-31T23:59:59.999Z", "2026-12-31"],
    ["2026-03-01T01:00:00+14:00", "2026-03-01"],
    ["2024-02-29T00:00:00Z", "2024-02-29"],
  ])("%s -> %s", (value, date) => {
    expect(calendarDate(value)).toBe(date);
  });

  it.each<unknown>([
    "2026-02-29",
    "2100-02-29",
    "2026-02-30",
    "2026-02-30T00:00:00Z",
    "2026-04-31",
    "2026-00-10",
    "2026-01-00",
    "2026-01-32",
    "26-01-01",
    "2026/01/01",
    " 2026-01-01",
    "2026-01-01 ",
    "",
    null,
    new Date("2026-01-01"),
  ])("%j is no calendar date", (value) => {
    expect(calendarDate(value)).toBeUndefined();
  });
});

describe("replaceConfiguration: versions and required fields", () => {
  it.each<Json>(["1", 1.5, null])("version %j: 400 VERSION_REQUIRED at /version", (version) => {
    expect(() => replaceConfiguration(current(), { version, returnLabel: true }, c)).toThrow(
      expect.objectContaining({ kind: "invalid", code: "VERSION_REQUIRED", field: "/version" }),
    );
  });

  it("a stale version after a write: 409 naming both versions", () => {
    const next = put();
    expect(() => replaceConfiguration(next, { version: 1, returnLabel: true }, c)).toThrow(
      expect.objectContaining({
        kind: "version_conflict",
        code: "VERSION_CONFLICT",
        requestVersion: 1,
        version: 2,
      }),
    );
    expect(replaceConfiguration(next, { version: 2, returnLabel: true }, c).version).toBe(3);
  });

  it("another carrierRef: 400 CARRIER_REF_MISMATCH at /carrierRef; the same or none is fine", () => {
    expect(() => put({ carrierRef: "carrier-2" })).toThrow(
      expect.objectContaining({ kind: "invalid", code: "CARRIER_REF_MISMATCH", field: "/carrierRef" }),
    );
    expect(put({ carrierRef: "carrier-1" }).carrierRef).toBe("carrier-1");
    expect(replaceConfiguration(current(), { version: 1, returnLabel: false }, c).carrierRef).toBe(
      "carrier-1",
    );
  });

  it.each<Json>([undefined as never, null, "true", 1])(
    "returnLabel %j: 400 RETURN_LABEL_REQUIRED at /returnLabel",
    (returnLabel) => {
      const input: JsonObject = { version: 1 };
      if (returnLabel !== undefined) input.returnLabel = returnLabel;
      expect(() => replaceConfiguration(current(), input, c)).toThrow(
        expect.objectContaining({ kind: "invalid", code: "RETURN_LABEL_REQUIRED", field: "/returnLabel" }),
      );
    },
  );
});

describe("replaceConfiguration: a full replacement", () => {
  it("what the body omits is gone, null counts as omitted; the variant's fields are kept", () => {
    const dhl = put({
      mustBeWeighed: true,
      trackAndTraceUrl: "https://t",
      useEconomyService: true,
      customerId: "c-1",
      defaultPickUpTime: { start: { hour: 8, minute: 0 }, end: { hour: 17, minute: 0 } },
    });
    expect(dhl).toMatchObject({
      trackAndTraceUrl: "https://t",
      useEconomyService: true,
      customerId: "c-1",
      mustBeWeighed: true,
    });
    const next = replaceConfiguration(
      dhl,
      {
        version: 2,
        returnLabel: false,
        useEconomyService: false,
        trackAndTraceUrl: null,
        mustBeWeighed: null,
      },
      c,
    );
    expect(next).toEqual({
      id: "config-1",
      version: 3,
      created: "2026-11-01T00:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      carrierRef: "carrier-1",
      returnLabel: false,
      mustBeWeighed: false,
      useEconomyService: false,
      countryServiceMappings: [],
      nonDeliveryDaysPerCountryAndProvince: [],
    });
  });

  it("omitted mappings and non-delivery days are gone too", () => {
    const m = { source: { countryCode: "DE" }, destinations: [{ countryCode: "AT" }] };
    const full = put({
      countryServiceMappings: [m],
      nonDeliveryDaysPerCountryAndProvince: [country([{ nonDeliveryDay: "2026-12-24" }])],
    });
    expect(full.countryServiceMappings).toHaveLength(1);
    expect(full.nonDeliveryDaysPerCountryAndProvince).toHaveLength(1);
    const empty = replaceConfiguration(full, { version: 2, returnLabel: true }, c);
    expect(empty.countryServiceMappings).toEqual([]);
    expect(empty.nonDeliveryDaysPerCountryAndProvince).toEqual([]);
  });

  it("id, version, created and lastModified come from the current configuration and the clock", () => {
    const before = current();
    const snapshot = structuredClone(before);
    const next = replaceConfiguration(
      before,
      {
        version: 1,
        returnLabel: true,
        id: "other",
        created: "1999-01-01T00:00:00.000Z",
        lastModified: "1999-01-01T00:00:00.000Z",
      },
      c,
    );
    expect(next).toMatchObject({
      id: "config-1",
      version: 2,
      created: "2026-11-01T00:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      carrierRef: "carrier-1",
    });
    expect(before).toEqual(snapshot);
  });
});

describe("replaceConfiguration: non-delivery days", () => {
  const bad = (field: string) => expect.objectContaining({ kind: "invalid", code: "INVALID_DATE", field });
  const at = "/nonDeliveryDaysPerCountryAndProvince";

  it("keeps each entry's other fields; dates as YYYY-MM-DD; SINGLE unless a type is given", () => {
    const out = put({
      nonDeliveryDaysPerCountryAndProvince: [
        country(
          [{ nonDeliveryDay: "2024-02-29T12:00:00Z", nonDeliveryType: "RECURRING", note: "n" }],
          [
            {
              province: "BY",
              recurringNonDeliveryWeekdays: ["SATURDAY"],
              nonDeliveryDays: [
                { nonDeliveryDay: "2026-08-15T00:00:00.000+02:00" },
                { nonDeliveryDay: "2026-01-06", nonDeliveryType: "RECURRING" },
              ],
            },
          ],
        ),
        { country: "AT", recurringNonDeliveryWeekdays: ["SUNDAY"] },
      ],
    });
    expect(out.nonDeliveryDaysPerCountryAndProvince).toEqual([
      {
        country: "DE",
        recurringNonDeliveryWeekdays: ["SUNDAY"],
        nonDeliveryDays: [{ nonDeliveryDay: "2024-02-29", nonDeliveryType: "RECURRING", note: "n" }],
        nonDeliveryDaysPerProvince: [
          {
            province: "BY",
            recurringNonDeliveryWeekdays: ["SATURDAY"],
            nonDeliveryDays: [
              { nonDeliveryDay: "2026-08-15", nonDeliveryType: "SINGLE" },
              { nonDeliveryDay: "2026-01-06", nonDeliveryType: "RECURRING" },
            ],
          },
        ],
      },
      {
        country: "AT",
        recurringNonDeliveryWeekdays: ["SUNDAY"],
        nonDeliveryDays: [],
        nonDeliveryDaysPerProvince: [],
      },
    ]);
  });

  it.each<Json>(["2026-02-29", "2026-02-30", "2026-13-01", "24.12.2026", "", 20261224, null])(
    "the country's day %j: 400 INVALID_DATE naming the entry",
    (day) => {
      const ok = { nonDeliveryDay: "2026-12-24" };
      expect(() =>
        put({
          nonDeliveryDaysPerCountryAndProvince: [country([ok]), country([ok, ok, { nonDeliveryDay: day }])],
        }),
      ).toThrow(bad(`${at}/1/nonDeliveryDays/2/nonDeliveryDay`));
    },
  );

  it("a province's bad day: 400 INVALID_DATE naming the province entry", () => {
    const province = (day: Json) => ({
      province: "P",
      nonDeliveryDays: [{ nonDeliveryDay: "2026-12-24" }, { nonDeliveryDay: day }],
    });
    expect(() =>
      put({
        nonDeliveryDaysPerCountryAndProvince: [
          country([], [province("2026-12-25"), province("2026-02-29T00:00:00Z")]),
        ],
      }),
    ).toThrow(bad(`${at}/0/nonDeliveryDaysPerProvince/1/nonDeliveryDays/1/nonDeliveryDay`));
  });

  it("a day without nonDeliveryDay, or no object: 400 INVALID_DATE", () => {
    expect(() =>
      put({ nonDeliveryDaysPerCountryAndProvince: [country([{ nonDeliveryType: "SINGLE" }])] }),
    ).toThrow(bad(`${at}/0/nonDeliveryDays/0/nonDeliveryDay`));
    expect(() =>
      put({ nonDeliveryDaysPerCountryAndProvince: [{ country: "DE", nonDeliveryDays: ["2026-12-24"] }] }),
    ).toThrow(bad(`${at}/0/nonDeliveryDays/0/nonDeliveryDay`));
  });

  it("no list, or an entry that is no object: 400 INVALID_VALUE", () => {
    expect(() => put({ nonDeliveryDaysPerCountryAndProvince: { country: "DE" } })).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_VALUE", field: at }),
    );
    expect(() => put({ nonDeliveryDaysPerCountryAndProvince: [country([]), "DE"] })).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_VALUE", field: `${at}/1` }),
    );
  });
});

describe("replaceConfiguration: pick-up time and price range", () => {
  const t = (hour: Json, minute: Json) => ({ hour, minute });

  it.each<[JsonObject, JsonObject]>([
    [t(0, 0), t(23, 59)],
    [t(9, 0), t(9, 0)],
    [t(9, 59), t(10, 0)],
  ])("%j to %j is a pick-up time", (start, end) => {
    expect(put({ defaultPickUpTime: { start, end } }).defaultPickUpTime).toEqual({ start, end });
  });

  it.each<[JsonObject, JsonObject]>([
    [t(9, 1), t(9, 0)],
    [t(23, 59), t(0, 0)],
    [t(10, 0), t(9, 59)],
  ])("start %j after end %j: 400 INVALID_PICK_UP_TIME", (start, end) => {
    expect(() => put({ defaultPickUpTime: { start, end } })).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_PICK_UP_TIME", field: "/defaultPickUpTime" }),
    );
  });

  it.each<Json>([
    { start: t(24, 0), end: t(23, 0) },
    { start: t(8, 0), end: t(24, 0) },
    { start: t(-1, 0), end: t(9, 0) },
    { start: t(8, 60), end: t(9, 0) },
    { start: t(8, -1), end: t(9, 0) },
    { start: t(8.5, 0), end: t(9, 0) },
    { start: t("8", 0), end: t(9, 0) },
    { start: t(8, 0) },
    { end: t(8, 0) },
    { start: "08:00", end: "09:00" },
    "08:00-09:00",
  ])("defaultPickUpTime %j: 400 INVALID_TIME_OF_DAY", (defaultPickUpTime) => {
    expect(() => put({ defaultPickUpTime })).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_TIME_OF_DAY", field: "/defaultPickUpTime" }),
    );
  });

  it("a price range's from may equal to but not exceed it", () => {
    const range = (from: number, to: number) => ({ priceRange: { from, to, currency: "EUR" } });
    expect(put({ thresholdPriceValue: range(5, 5) }).thresholdPriceValue).toEqual(range(5, 5));
    expect(() => put({ thresholdPriceValue: range(5.01, 5) })).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "INVALID_PRICE_RANGE",
        field: "/thresholdPriceValue/priceRange",
      }),
    );
  });
});

describe("replaceConfiguration: mappings", () => {
  const m = (extra: JsonObject = {}): JsonObject => ({
    source: { countryCode: "DE" },
    destinations: [{ countryCode: "AT" }],
    ...extra,
  });

  it("keeps given ids and generates the missing or empty ones, in order", () => {
    const out = put({ countryServiceMappings: [m(), m({ id: "keep" }), m({ id: "" }), m({ id: 7 })] });
    const ids = out.countryServiceMappings.map((x) => x.id);
    expect(ids[1]).toBe("keep");
    for (const i of [0, 2, 3]) expect(ids[i]).toMatch(/^gen\d+$/);
    expect(new Set(ids).size).toBe(4);
  });

  it("duplicate ids: 400 DUPLICATE_MAPPING_ID naming the second", () => {
    expect(() =>
      put({ countryServiceMappings: [m({ id: "a" }), m({ id: "b" }), m(), m({ id: "b" })] }),
    ).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "DUPLICATE_MAPPING_ID",
        field: "/countryServiceMappings/3/id",
      }),
    );
  });

  it("100 mappings are fine, 101 a 400 TOO_MANY_MAPPINGS", () => {
    expect(
      put({ countryServiceMappings: Array.from({ length: 100 }, () => m()) }).countryServiceMappings,
    ).toHaveLength(100);
    expect(() => put({ countryServiceMappings: Array.from({ length: 101 }, () => m()) })).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "TOO_MANY_MAPPINGS",
        field: "/countryServiceMappings",
      }),
    );
  });

  it.each<[JsonObject | string, string, string]>([
    [m({ source: undefined as never }), "INVALID_REGION", "/countryServiceMappings/2/source"],
    [m({ destinations: [] }), "DESTINATIONS_REQUIRED", "/countryServiceMappings/2/destinations"],
    [
      m({ destinations: [{ countryCode: "AUT" }] }),
      "INVALID_REGION",
      "/countryServiceMappings/2/destinations/0",
    ],
    [
      m({ countAsTransitDayBefore: "24:00" }),
      "INVALID_TIME_OF_DAY",
      "/countryServiceMappings/2/countAsTransitDayBefore",
    ],
    [
      m({ transitTime: { minTransitDays: 3, maxTransitDays: 2 } }),
      "INVALID_TRANSIT_TIME",
      "/countryServiceMappings/2/transitTime",
    ],
    ["not a mapping", "INVALID_REGION", "/countryServiceMappings/2/source"],
  ])("a bad third mapping %j: 400 %s at %s", (bad, code, field) => {
    const third = typeof bad === "string" ? bad : (JSON.parse(JSON.stringify(bad)) as JsonObject);
    expect(() => put({ countryServiceMappings: [m(), m(), third] })).toThrow(
      expect.objectContaining({ kind: "invalid", code, field }),
    );
  });

  it("the mapping rules apply: derived fields, deprecated fields, repeated additional attributes", () => {
    const out = put({
      countryServiceMappings: [
        {
          id: "a",
          sourceCountry: "CH",
          destinations: [{ countryCode: "AT" }],
          destinationCountries: ["FR", "AT"],
          mandatoryShippingAttributes: [{ referencedField: "x" }],
          additionalShippingAttributes: [{ referencedField: "x" }, { referencedField: "y" }],
          carrierServices: ["SIGNATURE"],
          staticCCSMRef: "s",
        },
      ],
    });
    expect(out.countryServiceMappings[0]).toEqual({
      id: "a",
      source: { countryCode: "CH" },
      destinations: [{ countryCode: "AT" }],
      sourceCountry: "CH",
      destinationCountries: ["AT"],
      mandatoryShippingAttributes: [{ referencedField: "x" }],
      additionalShippingAttributes: [{ referencedField: "y" }],
      carrierServices: ["SIGNATURE"],
      staticCCSMRef: "s",
    });
  });
});

it("PUT: countryServiceMappings must be a list; a null carrierRef counts as omitted", () => {
  const cur = defaultConfiguration("carrier-1", "config-1", new Date("2026-11-01T00:00:00.000Z"));
  const c2 = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "g" };
  expect(() =>
    replaceConfiguration(cur, { version: 1, returnLabel: true, countryServiceMappings: { a: 1 } }, c2),
  ).toThrow(expect.objectContaining({ field: "/countryServiceMappings" }));
  expect(replaceConfiguration(cur, { version: 1, returnLabel: true, carrierRef: null }, c2).carrierRef).toBe(
    "carrier-1",
  );
});
