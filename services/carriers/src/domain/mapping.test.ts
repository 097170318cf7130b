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
import type { CarrierConfiguration, ChangeContext, JsonObject } from "./types.ts";

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

  it("maps the deprecated sourceCountry and destinationCountries; shows both derived", () => {
    const m = buildMapping({}, body(1, { destinationCountries: ["FR", "DE", "FR"] }), "x");
    expect(m.destinations).toEqual([{ countryCode: "DE" }, { countryCode: "FR" }]);
    expect(m.destinationCountries).toEqual(["DE", "FR"]);
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
