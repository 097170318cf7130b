import { describe, expect, it } from "vitest";
import { defaultConfiguration } from "./configuration.ts";
import {
  addMapping,
  buildMapping,
  findMapping,
  MAX_MAPPINGS,
  removeMapping,
  updateMapping,
} from "./mapping.ts";
import type { CarrierConfiguration, ChangeContext, Json, JsonObject } from "./types.ts";

let n = 0;
const c: ChangeContext = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => `m${++n}` };
const err = (kind: string, code?: string) => expect.objectContaining(code ? { kind, code } : { kind });
const fresh = (): CarrierConfiguration =>
  defaultConfiguration("carrier", "config", new Date("2026-11-01T00:00:00Z"));
const body = (version: number, extra: JsonObject = {}): JsonObject => ({
  carrierConfigurationVersion: version,
  source: { countryCode: "DE" },
  destinations: [{ countryCode: "DE" }],
  ...extra,
});

describe("mapping writes move the configuration's version", () => {
  it("add, update and remove each name (add/update) and move the version by one", () => {
    const a = addMapping(fresh(), body(1, { products: ["P"] }), c);
    expect(a.config.version).toBe(2);
    expect(a.config.lastModified).toBe("2026-11-25T10:00:00.000Z");
    expect(a.config.countryServiceMappings).toEqual([a.mapping]);
    const b = addMapping(a.config, body(2, { destinations: [{ countryCode: "AT" }] }), c);
    const u = updateMapping(b.config, a.mapping.id, { carrierConfigurationVersion: 3, products: ["Q"] }, c);
    expect(u.config.version).toBe(4);
    expect(u.mapping).toMatchObject({
      id: a.mapping.id,
      products: ["Q"],
      destinations: [{ countryCode: "DE" }],
    });
    expect(u.config.countryServiceMappings.map((m) => m.id)).toEqual([a.mapping.id, b.mapping.id]);
    expect(u.config.countryServiceMappings[1]).toEqual(b.mapping);
    const r = removeMapping(u.config, a.mapping.id, c);
    expect(r.config.version).toBe(5);
    expect(r.config.countryServiceMappings).toEqual([b.mapping]);
    expect(r.mapping).toEqual(u.mapping);
    expect(findMapping(r.config, b.mapping.id)).toEqual(b.mapping);
  });

  it("400 without carrierConfigurationVersion, 409 on another one", () => {
    const { carrierConfigurationVersion: _, ...noVersion } = body(1);
    expect(() => addMapping(fresh(), noVersion, c)).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "VERSION_REQUIRED",
        field: "/carrierConfigurationVersion",
      }),
    );
    expect(() => addMapping(fresh(), body(2), c)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 2, version: 1 }),
    );
    const a = addMapping(fresh(), body(1), c);
    expect(() => updateMapping(a.config, a.mapping.id, { products: [] }, c)).toThrow(
      err("invalid", "VERSION_REQUIRED"),
    );
    expect(() => updateMapping(a.config, a.mapping.id, { carrierConfigurationVersion: 1 }, c)).toThrow(
      err("version_conflict"),
    );
  });

  it("404 for an unknown mapping; at most 100 mappings", () => {
    expect(() => updateMapping(fresh(), "nope", { carrierConfigurationVersion: 1 }, c)).toThrow(
      err("not_found"),
    );
    expect(() => removeMapping(fresh(), "nope", c)).toThrow(err("not_found"));
    expect(() => findMapping(fresh(), "nope")).toThrow(err("not_found"));
    let config = fresh();
    for (let i = 0; i < MAX_MAPPINGS; i++) config = addMapping(config, body(config.version), c).config;
    expect(config.countryServiceMappings).toHaveLength(100);
    expect(() => addMapping(config, body(config.version), c)).toThrow(err("invalid", "TOO_MANY_MAPPINGS"));
  });
});

describe("mapping rules", () => {
  it("countAsTransitDayBefore is HH:MM from 00:00 to 23:59", () => {
    for (const t of ["00:00", "23:59", "12:00", "09:30"]) {
      expect(buildMapping({}, body(1, { countAsTransitDayBefore: t }), "x").countAsTransitDayBefore).toBe(t);
    }
    for (const t of ["24:00", "24:30", "7:00", "12:60", "noon", "", "12:00:00"]) {
      expect(() => buildMapping({}, body(1, { countAsTransitDayBefore: t }), "x"), t).toThrow(
        expect.objectContaining({ code: "INVALID_TIME_OF_DAY", field: "/countAsTransitDayBefore" }),
      );
    }
  });

  it("transitTime: whole days 0-365, min not above max", () => {
    expect(
      buildMapping({}, body(1, { transitTime: { minTransitDays: 0, maxTransitDays: 0 } }), "x").transitTime,
    ).toEqual({
      minTransitDays: 0,
      maxTransitDays: 0,
    });
    for (const t of [
      { minTransitDays: 3, maxTransitDays: 1 },
      { minTransitDays: -1, maxTransitDays: 1 },
      { minTransitDays: 1.5, maxTransitDays: 2 },
      { minTransitDays: 1, maxTransitDays: 366 },
      { minTransitDays: 1 } as JsonObject,
    ]) {
      expect(() => buildMapping({}, body(1, { transitTime: t }), "x"), JSON.stringify(t)).toThrow(
        err("invalid", "INVALID_TRANSIT_TIME"),
      );
    }
  });

  it("source and at least one destination are required; the field is named", () => {
    expect(() => buildMapping({}, body(1, { destinations: [] }), "x")).toThrow(
      err("invalid", "DESTINATIONS_REQUIRED"),
    );
    const { source: _, ...noSource } = body(1);
    expect(() => buildMapping({}, noSource, "x")).toThrow(expect.objectContaining({ field: "/source" }));
    expect(() =>
      buildMapping({}, body(1, { destinations: [{ countryCode: "D" }] }), "x", { field: "/m/0" }),
    ).toThrow(expect.objectContaining({ field: "/m/0/destinations/0" }));
    expect(() => buildMapping({}, body(1, { deliveryCosts: [{ cost: 1 }, { cost: 2 }] }), "x")).toThrow(
      err("invalid"),
    );
  });

  it("maps the deprecated sourceCountry and destinationCountries when alone; shows both derived", () => {
    const { destinations: _d, ...noDestinations } = body(1);
    const m = buildMapping({}, { ...noDestinations, destinationCountries: ["FR", "DE", "FR"] }, "x");
    expect(m.destinations).toEqual([{ countryCode: "FR" }, { countryCode: "DE" }]);
    expect(m.destinationCountries).toEqual(["FR", "DE"]);
    expect(m.sourceCountry).toBe("DE");
    const { source: _, ...noSource } = body(1);
    expect(buildMapping({}, { ...noSource, sourceCountry: "AT" }, "x").source).toEqual({ countryCode: "AT" });
    // A given source wins over the deprecated field.
    expect(buildMapping({}, body(1, { sourceCountry: "AT" }), "x").source).toEqual({ countryCode: "DE" });
    // On update, destinationCountries alone replace the destinations.
    const base = buildMapping({}, body(1, { destinations: [{ countryCode: "PL" }] }), "x");
    expect(buildMapping(base, { destinationCountries: ["CH"] }, "x").destinations).toEqual([
      { countryCode: "CH" },
    ]);
  });

  it("drops additional attributes that repeat a mandatory one", () => {
    const art = (f: string) => ({
      referencedField: f,
      dataType: "NUMBER",
      category: "customs",
      descriptionLocalized: {},
    });
    const m = buildMapping(
      {},
      body(1, {
        mandatoryShippingAttributes: [{ referencedField: "productValue" }],
        additionalShippingAttributes: [
          { referencedField: "productValue" },
          { referencedField: "dimensions.weight" },
        ],
        mandatoryShippingArticleAttributes: [art("attributes.hsCode")],
        additionalShippingArticleAttributes: [art("attributes.hsCode"), art("attributes.currency")],
      }),
      "x",
    );
    expect(m.additionalShippingAttributes).toEqual([{ referencedField: "dimensions.weight" }]);
    expect((m.additionalShippingArticleAttributes as JsonObject[]).map((a) => a.referencedField)).toEqual([
      "attributes.currency",
    ]);
  });

  it("null removes an optional field on update; source and destinations stay", () => {
    const base = buildMapping({}, body(1, { products: ["P"], countAsTransitDayBefore: "10:00" }), "x");
    const next = buildMapping(base, { products: null, source: null, destinations: null }, "x");
    expect(next).not.toHaveProperty("products");
    expect(next.countAsTransitDayBefore).toBe("10:00");
    expect(next.source).toEqual({ countryCode: "DE" });
  });

  it("carrierServices and staticCCSMRef only where a full configuration carries them", () => {
    const input = body(1, { carrierServices: ["SIGNATURE"], staticCCSMRef: "s" });
    expect(buildMapping({}, input, "x")).not.toHaveProperty("carrierServices");
    expect(buildMapping({}, input, "x", { readOnlyFields: true })).toMatchObject({
      carrierServices: ["SIGNATURE"],
      staticCCSMRef: "s",
    });
  });
});

describe("mapping writes: versions, ids, order", () => {
  const three = () => {
    let config: CarrierConfiguration = { ...fresh(), returnLabel: true, trackAndTraceUrl: "t" };
    const ids: string[] = [];
    for (const cc of ["DE", "AT", "CH"]) {
      const a = addMapping(config, body(config.version, { destinations: [{ countryCode: cc }] }), c);
      config = a.config;
      ids.push(a.mapping.id);
    }
    return { config, ids };
  };

  it.each<Json>(["1", 1.5, null])(
    "carrierConfigurationVersion %j is no version: 400 on add and update",
    (v) => {
      const { config, ids } = three();
      expect(() => addMapping(config, body(1, { carrierConfigurationVersion: v }), c)).toThrow(
        expect.objectContaining({
          kind: "invalid",
          code: "VERSION_REQUIRED",
          field: "/carrierConfigurationVersion",
        }),
      );
      expect(() => updateMapping(config, ids[0]!, { carrierConfigurationVersion: v }, c)).toThrow(
        expect.objectContaining({ kind: "invalid", code: "VERSION_REQUIRED" }),
      );
    },
  );

  it("a stale carrierConfigurationVersion on update: 409 naming both versions", () => {
    const { config, ids } = three();
    expect(() =>
      updateMapping(config, ids[1]!, { carrierConfigurationVersion: 2, products: ["P"] }, c),
    ).toThrow(expect.objectContaining({ kind: "version_conflict", requestVersion: 2, version: 4 }));
  });

  it("add: a new id (not the body's), appended last, no version field on the mapping", () => {
    const { config, ids } = three();
    const a = addMapping(config, body(4, { id: "mine" }), c);
    expect(a.mapping.id).not.toBe("mine");
    expect(a.mapping.id).toMatch(/^m\d+$/);
    expect(a.mapping).not.toHaveProperty("carrierConfigurationVersion");
    expect(a.config.countryServiceMappings.map((m) => m.id)).toEqual([...ids, a.mapping.id]);
  });

  it("each write moves only version, lastModified and the mappings; the given configuration is not changed", () => {
    const { config, ids } = three();
    const snapshot = structuredClone(config);
    const at = (iso: string): ChangeContext => ({ ...c, now: new Date(iso) });
    const added = addMapping(config, body(4), at("2026-12-01T00:00:00.000Z")).config;
    const updated = updateMapping(
      added,
      ids[0]!,
      { carrierConfigurationVersion: 5, products: ["P"] },
      at("2026-12-02T00:00:00.000Z"),
    ).config;
    const removed = removeMapping(updated, ids[0]!, at("2026-12-03T00:00:00.000Z")).config;
    const rest = ({
      version: _v,
      lastModified: _l,
      countryServiceMappings: _m,
      ...other
    }: CarrierConfiguration) => other;
    expect([added, updated, removed].map((x) => [x.version, x.lastModified])).toEqual([
      [5, "2026-12-01T00:00:00.000Z"],
      [6, "2026-12-02T00:00:00.000Z"],
      [7, "2026-12-03T00:00:00.000Z"],
    ]);
    for (const x of [added, updated, removed]) expect(rest(x)).toEqual(rest(snapshot));
    expect(config).toEqual(snapshot);
    expect(added).not.toEqual(updated);
    expect(findMapping(added, ids[0]!)).toEqual(snapshot.countryServiceMappings[0]);
  });

  it("update and remove keep the others untouched and in order", () => {
    const { config, ids } = three();
    const [first, , third] = config.countryServiceMappings;
    const u = updateMapping(config, ids[1]!, { carrierConfigurationVersion: 4, products: ["X"] }, c);
    expect(u.config.countryServiceMappings.map((m) => m.id)).toEqual(ids);
    expect(u.config.countryServiceMappings[0]).toEqual(first);
    expect(u.config.countryServiceMappings[2]).toEqual(third);
    expect(u.config.countryServiceMappings[1]).toEqual(u.mapping);
    const r = removeMapping(config, ids[1]!, c);
    expect(r.config.countryServiceMappings).toEqual([first, third]);
    expect(r.mapping).toEqual(config.countryServiceMappings[1]);
    expect(r.config.version).toBe(config.version + 1);
  });

  it("update keeps the mapping's id whatever the body says", () => {
    const { config, ids } = three();
    const u = updateMapping(config, ids[2]!, { carrierConfigurationVersion: 4, id: "other" }, c);
    expect(u.mapping.id).toBe(ids[2]);
    expect(u.config.countryServiceMappings.map((m) => m.id)).toEqual(ids);
  });

  it("404 COUNTRY_SERVICE_MAPPING_NOT_FOUND for an unknown id on find, update and remove", () => {
    const { config } = three();
    const notFound = expect.objectContaining({
      kind: "not_found",
      code: "COUNTRY_SERVICE_MAPPING_NOT_FOUND",
    });
    expect(() => findMapping(config, "missing")).toThrow(notFound);
    expect(() => updateMapping(config, "missing", { carrierConfigurationVersion: 4 }, c)).toThrow(notFound);
    expect(() => removeMapping(config, "missing", c)).toThrow(notFound);
  });

  it("the 101st mapping: 400 TOO_MANY_MAPPINGS at /countryServiceMappings; the 100th is fine", () => {
    const ninetyNine = {
      ...fresh(),
      countryServiceMappings: Array.from({ length: MAX_MAPPINGS - 1 }, (_, i) =>
        buildMapping({}, body(1), `x${i}`),
      ),
    };
    const hundred = addMapping(ninetyNine, body(1), c).config;
    expect(MAX_MAPPINGS).toBe(100);
    expect(hundred.countryServiceMappings).toHaveLength(100);
    expect(() => addMapping(hundred, body(2), c)).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "TOO_MANY_MAPPINGS",
        field: "/countryServiceMappings",
      }),
    );
    // Updating and removing still work at the limit.
    expect(updateMapping(hundred, "x0", { carrierConfigurationVersion: 2 }, c).config.version).toBe(3);
    expect(removeMapping(hundred, "x0", c).config.countryServiceMappings).toHaveLength(99);
  });
});

describe("mapping fields", () => {
  it.each(["00:00", "23:59", "08:05", "19:00"])("countAsTransitDayBefore %s is a time of day", (t) => {
    const { mapping } = addMapping(fresh(), body(1, { countAsTransitDayBefore: t }), c);
    expect(mapping.countAsTransitDayBefore).toBe(t);
  });

  it.each(["24:00", "24:30", "7:00", "12:60", "noon", "12:5", " 12:00", "12:00 ", "1200", "-1:00"])(
    "countAsTransitDayBefore %j: 400 INVALID_TIME_OF_DAY on add and update",
    (t) => {
      const bad = expect.objectContaining({
        kind: "invalid",
        code: "INVALID_TIME_OF_DAY",
        field: "/countAsTransitDayBefore",
      });
      expect(() => addMapping(fresh(), body(1, { countAsTransitDayBefore: t }), c)).toThrow(bad);
      const { config, mapping } = addMapping(fresh(), body(1), c);
      expect(() =>
        updateMapping(config, mapping.id, { carrierConfigurationVersion: 2, countAsTransitDayBefore: t }, c),
      ).toThrow(bad);
    },
  );

  it.each<[number, number]>([
    [0, 0],
    [1, 3],
    [365, 365],
  ])("transitTime %i..%i is accepted", (min, max) => {
    const transitTime = { minTransitDays: min, maxTransitDays: max };
    expect(buildMapping({}, body(1, { transitTime }), "x").transitTime).toEqual(transitTime);
  });

  it.each<Json>([
    { minTransitDays: 2, maxTransitDays: 1 },
    { minTransitDays: -1, maxTransitDays: 0 },
    { minTransitDays: 0, maxTransitDays: -2 },
    { minTransitDays: 0, maxTransitDays: 2.5 },
    { minTransitDays: 0.5, maxTransitDays: 1 },
    { minTransitDays: "1", maxTransitDays: 2 },
    { maxTransitDays: 2 },
    "1-2",
    [1, 2],
  ])("transitTime %j: 400 INVALID_TRANSIT_TIME at /transitTime", (transitTime) => {
    expect(() => buildMapping({}, body(1, { transitTime }), "x")).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_TRANSIT_TIME", field: "/transitTime" }),
    );
  });

  it.each<[string, JsonObject, string, string]>([
    ["no destinations", { destinations: undefined as never }, "DESTINATIONS_REQUIRED", "/destinations"],
    ["null destinations", { destinations: null }, "DESTINATIONS_REQUIRED", "/destinations"],
    ["empty destinations", { destinations: [] }, "DESTINATIONS_REQUIRED", "/destinations"],
    [
      "destinations no list",
      { destinations: { countryCode: "DE" } },
      "DESTINATIONS_REQUIRED",
      "/destinations",
    ],
    ["a bad destination", { destinations: [{ countryCode: "DE" }, {}] }, "INVALID_REGION", "/destinations/1"],
    ["no source", { source: undefined as never }, "INVALID_REGION", "/source"],
    ["null source", { source: null }, "INVALID_REGION", "/source"],
    ["a three-letter source", { source: { countryCode: "DEU" } }, "INVALID_REGION", "/source"],
  ])("%s on add: 400 %s at %s", (_, extra, code, field) => {
    const input = Object.fromEntries(
      Object.entries(body(1, extra)).filter(([, v]) => v !== undefined),
    ) as JsonObject;
    expect(() => addMapping(fresh(), input, c)).toThrow(
      expect.objectContaining({ kind: "invalid", code, field }),
    );
  });

  it("shows sourceCountry and destinationCountries derived (each country once), also after an update", () => {
    const { config, mapping } = addMapping(
      fresh(),
      body(1, {
        source: { countryCode: "DE", postalCodes: ["10"] },
        destinations: [
          { countryCode: "AT", postalCodes: ["1"] },
          { countryCode: "CH" },
          { countryCode: "AT", postalCodes: ["5"] },
        ],
      }),
      c,
    );
    expect(mapping.sourceCountry).toBe("DE");
    expect(mapping.destinationCountries).toEqual(["AT", "CH"]);
    const u = updateMapping(
      config,
      mapping.id,
      {
        carrierConfigurationVersion: 2,
        source: { countryCode: "PL" },
        destinations: [{ countryCode: "FR" }],
      },
      c,
    );
    expect(u.mapping.sourceCountry).toBe("PL");
    expect(u.mapping.destinationCountries).toEqual(["FR"]);
  });

  it("deprecated sourceCountry becomes source only when no source is given", () => {
    const { source: _, ...noSource } = body(1);
    const m = addMapping(fresh(), { ...noSource, sourceCountry: "AT" }, c).mapping;
    expect(m.source).toEqual({ countryCode: "AT" });
    expect(m.sourceCountry).toBe("AT");
    const given = addMapping(
      fresh(),
      body(1, { source: { countryCode: "CH" }, sourceCountry: "AT" }),
      c,
    ).mapping;
    expect(given.source).toEqual({ countryCode: "CH" });
    expect(given.sourceCountry).toBe("CH");
    // An update naming only sourceCountry moves the stored source.
    const { config, mapping } = addMapping(fresh(), body(1), c);
    expect(
      updateMapping(config, mapping.id, { carrierConfigurationVersion: 2, sourceCountry: "NL" }, c).mapping
        .source,
    ).toEqual({ countryCode: "NL" });
  });

  it("given destinations win over the deprecated destinationCountries (a read sent back keeps its change)", () => {
    const stored = buildMapping(
      {},
      body(1, { destinations: [{ countryCode: "DE" }, { countryCode: "AT" }] }),
      "x",
    );
    expect(stored.destinationCountries).toEqual(["DE", "AT"]);
    // The client drops AT from destinations and sends the whole mapping back, stale old field included.
    const sentBack = { ...stored, destinations: [{ countryCode: "DE", postalCodes: ["10"] }] };
    const m = buildMapping(stored, sentBack as unknown as JsonObject, "x");
    expect(m.destinations).toEqual([{ countryCode: "DE", postalCodes: ["10"] }]);
    expect(m.destinationCountries).toEqual(["DE"]);
    const { destinations: _, ...noDestinations } = body(1);
    expect(buildMapping({}, { ...noDestinations, destinationCountries: ["CZ"] }, "x").destinations).toEqual([
      { countryCode: "CZ" },
    ]);
  });

  it("additional attributes repeating a mandatory one are dropped, also against the stored mandatory ones", () => {
    const { config, mapping } = addMapping(
      fresh(),
      body(1, {
        mandatoryShippingAttributes: [{ referencedField: "a" }],
        mandatoryShippingArticleAttributes: [{ referencedField: "art.a" }],
      }),
      c,
    );
    const u = updateMapping(
      config,
      mapping.id,
      {
        carrierConfigurationVersion: 2,
        additionalShippingAttributes: [{ referencedField: "a" }, { referencedField: "b" }, { label: "none" }],
        additionalShippingArticleAttributes: [{ referencedField: "art.a" }, { referencedField: "art.b" }],
      },
      c,
    );
    expect(u.mapping.additionalShippingAttributes).toEqual([{ referencedField: "b" }, { label: "none" }]);
    expect(u.mapping.additionalShippingArticleAttributes).toEqual([{ referencedField: "art.b" }]);
    // A new mandatory attribute drops the stored additional one it repeats.
    const v = updateMapping(
      u.config,
      mapping.id,
      { carrierConfigurationVersion: 3, mandatoryShippingAttributes: [{ referencedField: "b" }] },
      c,
    );
    expect(v.mapping.additionalShippingAttributes).toEqual([{ label: "none" }]);
    // Without mandatory attributes every additional one stays.
    const plain = buildMapping(
      {},
      body(1, { additionalShippingAttributes: [{ referencedField: "a" }] }),
      "x",
    );
    expect(plain.additionalShippingAttributes).toEqual([{ referencedField: "a" }]);
  });

  it("on update, null removes optional fields; null source and destinations keep the stored ones", () => {
    const { config, mapping } = addMapping(
      fresh(),
      body(1, {
        source: { countryCode: "AT" },
        destinations: [{ countryCode: "CH" }],
        transitTime: { minTransitDays: 1, maxTransitDays: 2 },
        countAsTransitDayBefore: "12:00",
        products: ["P"],
        carrierProductCategory: "PARCEL",
      }),
      c,
    );
    const u = updateMapping(
      config,
      mapping.id,
      {
        carrierConfigurationVersion: 2,
        transitTime: null,
        countAsTransitDayBefore: null,
        products: null,
        source: null,
        destinations: null,
      },
      c,
    );
    expect(u.mapping).not.toHaveProperty("transitTime");
    expect(u.mapping).not.toHaveProperty("countAsTransitDayBefore");
    expect(u.mapping).not.toHaveProperty("products");
    expect(u.mapping).toMatchObject({
      id: mapping.id,
      source: { countryCode: "AT" },
      destinations: [{ countryCode: "CH" }],
      carrierProductCategory: "PARCEL",
      sourceCountry: "AT",
      destinationCountries: ["CH"],
    });
  });

  it("fields outside the mapping schema are not stored", () => {
    const m = addMapping(fresh(), body(1, { status: "ACTIVE", carrierServices: ["X"] }), c).mapping;
    expect(m).not.toHaveProperty("status");
    expect(m).not.toHaveProperty("carrierServices");
  });
});

it("countAsTransitDayBefore must be a string (a list holding one is a 400)", () => {
  expect(() => buildMapping({}, body(1, { countAsTransitDayBefore: ["12:00"] }), "x")).toThrow(
    expect.objectContaining({ code: "INVALID_TIME_OF_DAY" }),
  );
});
