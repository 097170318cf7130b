/**
 * Carriers, carrier configurations, country service mappings and the transit time configuration
 * through the gateway (and the delivery date estimate over RPC): defaults, versions, every kind of
 * bad input, the default configuration created once under concurrent first reads, credentials
 * never shown (not in responses, not in events, not in clear text at rest), tenancy, audit trail
 * and conformance with the reference's schemas.
 */
import { randomBytes } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { credentialsCipher } from "@fop/carriers";
import { bearerInterceptor } from "@fop/kit/rpc/auth";
import { callOptions } from "@fop/kit/rpc/client";
import { testCredentials } from "@fop/kit/testing/rpc";
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

const KEY = randomBytes(32);
const SECRET = `pw-${randomBytes(6).toString("hex")}`;
const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let reader: ReturnType<System["as"]>;

beforeAll(async () => {
  sys = await startSystem({ serviceEnv: { CARRIER_CREDENTIALS_KEY: KEY.toString("base64") } });
  api = sys.as(await sys.token("acme", { user: "grace.hopper" }));
  other = sys.as(await sys.token("globex"));
  reader = sys.as(await sys.token("acme", { roles: [], permissions: ["CARRIER_READ"] }));
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};
let keys = 0;
const createCarrier = async (body: Record<string, unknown> = {}, as = api) => {
  const res = await as("POST", "/api/carriers", { key: `CUSTOM_C${++keys}`, name: "Carrier", ...body });
  expect(res.status, res.text).toBe(201);
  conformant("Carrier", res.body);
  return res.body as Record<string, any>;
};
const configOf = async (carrierId: string, as = api) => {
  const res = await as("GET", `/api/carriers/${carrierId}/configuration`);
  expect(res.status, res.text).toBe(200);
  conformant("CarrierConfiguration", res.body);
  return res.body as Record<string, any>;
};
const mappingsPath = (carrierId: string) => `/api/carriers/${carrierId}/configuration/countryservicemappings`;
const mappingBody = (version: number, extra: Record<string, unknown> = {}) => ({
  carrierConfigurationVersion: version,
  source: { countryCode: "DE" },
  destinations: [{ countryCode: "DE" }, { countryCode: "AT", postalCodes: ["1010"] }],
  carrierProductCategory: "STANDARD",
  transitTime: { minTransitDays: 1, maxTransitDays: 3 },
  countAsTransitDayBefore: "12:00",
  deliveryCosts: [{ cost: 4.99, currency: "EUR" }],
  products: ["PAKET"],
  ...extra,
});
const auditsOf = (entityRef: string, atLeast: number) =>
  eventually(async () => {
    const res = await api("POST", "/api/audits/search", {
      query: { entityRef: { eq: entityRef } },
      sort: [{ created: "ASC" }],
    });
    expect(res.status, res.text).toBe(200);
    return res.body.audits.length >= atLeast ? (res.body.audits as any[]) : undefined;
  });

describe("carriers", () => {
  it("creates with the reference's defaults, a Location, and only the credentials' key", async () => {
    const res = await api("POST", "/api/carriers", {
      key: "GLS",
      name: "GLS Köln",
      credentials: { key: "GLS", username: "gls-user", password: SECRET },
      productValueNeeded: true,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("location")).toBe(`/api/carriers/${res.body.id}`);
    expect(res.body).toMatchObject({
      key: "GLS",
      name: "GLS Köln",
      version: 1,
      status: "INACTIVE",
      deliveryType: "DELIVERY",
      lifecycle: "GA",
      defaultParcelHeightInCm: 10,
      defaultParcelLengthInCm: 25,
      defaultParcelWidthInCm: 35,
      defaultParcelWeightInGram: 1000,
      productValueNeeded: true,
      credentials: { key: "GLS" },
    });
    conformant("Carrier", res.body);
    const read = await api("GET", `/api/carriers/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it("400 for a missing key, a missing name, an unknown key; 409 for a key the tenant has", async () => {
    for (const [body, field] of [
      [{ name: "No key" }, "key"],
      [{ key: "UPS" }, "name"],
      [{ key: "ACME_POST", name: "x" }, "key"],
      [{ key: "CUSTOM_", name: "x" }, "key"],
      [{ key: "UPS", name: "x", defaultParcelWidthInCm: 0 }, "defaultParcelWidthInCm"],
      [{ key: "UPS", name: "x", status: "SLEEPING" }, "status"],
      [{ key: "UPS", name: "x", credentials: { user: "no key" } }, "key"],
    ] as const) {
      const res = await api("POST", "/api/carriers", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body[0].summary).toEqual(expect.any(String));
      expect(JSON.stringify(res.body)).toContain(field);
    }
    await createCarrier({ key: "CUSTOM_TWICE" });
    const again = await api("POST", "/api/carriers", { key: "CUSTOM_TWICE", name: "again" });
    expect(again.status, again.text).toBe(409);
    expect(again.body[0].description).toContain("CUSTOM_TWICE");
  });

  it("404 for an unknown or malformed id", async () => {
    for (const id of [UNKNOWN, "not-a-carrier"]) {
      expect((await api("GET", `/api/carriers/${id}`)).status).toBe(404);
      expect(
        (await api("PATCH", `/api/carriers/${id}`, { version: 1, actions: [{ action: "ModifyCarrier" }] }))
          .status,
      ).toBe(404);
    }
  });

  it("lists StrippedCarriers in creation order with size, startAfterId and total", async () => {
    const tenant = sys.as(await sys.token(`list-${randomBytes(3).toString("hex")}`));
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await createCarrier({ credentials: { key: "X", apiKey: SECRET } }, tenant));
    const first = await tenant("GET", "/api/carriers?size=2");
    expect(first.status, first.text).toBe(200);
    conformant("StrippedCarriers", first.body);
    expect(first.body.total).toBe(3);
    expect(first.body.carriers.map((c: any) => c.id)).toEqual([made[0]!.id, made[1]!.id]);
    expect(Object.keys(first.body.carriers[0]).sort()).toEqual(
      [
        "created",
        "deliveryType",
        "id",
        "key",
        "lastModified",
        "lifecycle",
        "name",
        "status",
        "version",
      ].sort(),
    );
    const next = await tenant("GET", `/api/carriers?size=2&startAfterId=${made[1]!.id}`);
    expect(next.body.carriers.map((c: any) => c.id)).toEqual([made[2]!.id]);
    expect((await tenant("GET", "/api/carriers?size=0")).status).toBe(400);
    expect((await tenant("GET", "/api/carriers?startAfterId=nope")).status).toBe(400);
  });

  it("PATCH applies ModifyCarrier actions on the current version; 409 on a stale one; 400 on others", async () => {
    const c = await createCarrier();
    const res = await api("PATCH", `/api/carriers/${c.id}`, {
      version: 1,
      actions: [
        { action: "ModifyCarrier", name: "Renamed", status: "ACTIVE" },
        { action: "ModifyCarrier", deliveryType: "SAMEDAY", defaultParcelWeightInGram: 500, key: "UPS" },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      version: 2,
      name: "Renamed",
      status: "ACTIVE",
      deliveryType: "SAMEDAY",
      defaultParcelWeightInGram: 500,
      defaultParcelWidthInCm: 35,
      key: c.key,
    });
    conformant("Carrier", res.body);
    const stale = await api("PATCH", `/api/carriers/${c.id}`, {
      version: 1,
      actions: [{ action: "ModifyCarrier", name: "late" }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
    for (const body of [
      { actions: [{ action: "ModifyCarrier", name: "x" }] },
      { version: 2, actions: [] },
      { version: 2, actions: [{ action: "ModifyFacility" }] },
      { version: 2, actions: [{ action: "ModifyCarrier", lifecycle: "GAMMA" }] },
    ]) {
      const bad = await api("PATCH", `/api/carriers/${c.id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api("GET", `/api/carriers/${c.id}`)).body.version).toBe(2);
  });

  it("never shows a credential secret: not in responses, not in events, not in clear text at rest", async () => {
    const c = await createCarrier({
      credentials: { key: "DPD_CH", delisId: "delis-1", password: SECRET },
    });
    const patched = await api("PATCH", `/api/carriers/${c.id}`, {
      version: 1,
      actions: [{ action: "ModifyCarrier", credentials: { key: "DPD_CH", password: `${SECRET}-2` } }],
    });
    expect(patched.status, patched.text).toBe(200);
    const texts = [
      JSON.stringify(c),
      patched.text,
      (await api("GET", `/api/carriers/${c.id}`)).text,
      (await api("GET", "/api/carriers?size=500")).text,
    ];
    const audits = await auditsOf(c.id, 2);
    texts.push(JSON.stringify(audits));
    for (const t of texts) {
      expect(t).not.toContain(SECRET);
      expect(t).not.toContain("delis-1");
    }
    expect(patched.body.credentials).toEqual({ key: "DPD_CH" });

    const db = new pg.Client({ connectionString: sys.db.url });
    await db.connect();
    try {
      const row = (
        await db.query("select doc::text as doc, credentials from carriers.carrier where id = $1", [c.id])
      ).rows[0];
      expect(row.doc).not.toContain(SECRET);
      expect(Buffer.from(row.credentials).includes(SECRET)).toBe(false);
      const outbox = await db.query("select payload from carriers.outbox");
      for (const r of outbox.rows) expect(Buffer.from(r.payload).includes(SECRET)).toBe(false);
      // Sealed for this tenant and carrier: the modification was merged into what was stored.
      expect(credentialsCipher(KEY).open("acme", c.id, row.credentials)).toEqual({
        key: "DPD_CH",
        delisId: "delis-1",
        password: `${SECRET}-2`,
      });
      expect(() => credentialsCipher(KEY).open("globex", c.id, row.credentials)).toThrow();
    } finally {
      await db.end();
    }
  });
});

describe("carrier configuration", () => {
  it("the first read creates the default; 404 for an unknown carrier", async () => {
    const c = await createCarrier();
    const config = await configOf(c.id);
    expect(config).toMatchObject({
      id: expect.any(String),
      version: 1,
      carrierRef: c.id,
      returnLabel: false,
      mustBeWeighed: false,
      countryServiceMappings: [],
      nonDeliveryDaysPerCountryAndProvince: [],
    });
    expect(await configOf(c.id)).toEqual(config);
    expect((await api("GET", `/api/carriers/${UNKNOWN}/configuration`)).status).toBe(404);
    expect((await api("GET", "/api/carriers/nope/configuration")).status).toBe(404);
  });

  it("20 concurrent first reads create it exactly once (five carriers at a time)", async () => {
    // Five carriers' first reads at once (100 requests) make the requests overlap in the service
    // (with one carrier alone they may not): without the insert's conflict handling some of these
    // reads are 409s and some carriers get two CREATED events.
    const carriers = [];
    for (let i = 0; i < 5; i++) carriers.push(await createCarrier());
    const reads = await Promise.all(
      carriers.map((c) =>
        Promise.all(Array.from({ length: 20 }, () => api("GET", `/api/carriers/${c.id}/configuration`))),
      ),
    );
    const db = new pg.Client({ connectionString: sys.db.url });
    await db.connect();
    try {
      for (const [i, c] of carriers.entries()) {
        const mine = reads[i]!;
        expect(mine.map((r) => r.status)).toEqual(Array(20).fill(200));
        expect(new Set(mine.map((r) => r.body.id)).size).toBe(1);
        expect(new Set(mine.map((r) => r.body.version))).toEqual(new Set([1]));
        const n = await db.query(
          "select count(*)::int as n from carriers.carrier_configuration where carrier_id = $1",
          [c.id],
        );
        expect(n.rows[0].n).toBe(1);
      }
    } finally {
      await db.end();
    }
    for (const mine of reads) {
      const audits = await auditsOf(mine[0]!.body.id, 1);
      expect(audits.map((a) => a.operation.name)).toEqual(["CARRIER_CONFIGURATION_CREATED"]);
    }
    await new Promise((r) => setTimeout(r, 300));
    for (const mine of reads) expect(await auditsOf(mine[0]!.body.id, 1)).toHaveLength(1);
  });

  const fullConfig = (carrierRef: string, version: number) => ({
    version,
    carrierRef,
    returnLabel: true,
    mustBeWeighed: true,
    additionalWeightInPercent: 7.5,
    fallBackTrackAndTraceEmail: "tracking@acme.example",
    serviceUrl: "https://carrier.example/api",
    defaultPickUpTime: { start: { hour: 9, minute: 0 }, end: { hour: 17, minute: 30 } },
    thresholdPriceValue: {
      priority: 1,
      priceRange: { from: 0, to: 25000, currency: "EUR", decimalPlaces: 2 },
    },
    alternativeSendAddress: {
      companyName: "ACME Ltd.",
      street: "Hauptstr.",
      houseNumber: "42a",
      postalCode: "40764",
      city: "Langenfeld",
      country: "DE",
      emailAddresses: [{ value: "send@acme.example", recipient: "Dispatch" }],
    },
    alternativeReturnAddress: {
      companyName: "ACME Returns",
      street: "Ring 1",
      postalCode: "50667",
      city: "Köln",
      country: "DE",
    },
    nonDeliveryDaysPerCountryAndProvince: [
      {
        country: "DE",
        nonDeliveryDays: [
          { nonDeliveryDay: "2026-12-25", nonDeliveryType: "RECURRING" },
          { nonDeliveryDay: "2026-12-31T00:00:00.000Z" },
        ],
        recurringNonDeliveryWeekdays: ["SUNDAY"],
        nonDeliveryDaysPerProvince: [
          {
            province: "BY",
            nonDeliveryDays: [{ nonDeliveryDay: "2026-01-06" }],
            recurringNonDeliveryWeekdays: [],
          },
        ],
      },
    ],
    countryServiceMappings: [
      {
        id: "ccsm-1",
        source: { countryCode: "DE" },
        destinations: [{ countryCode: "DE" }],
        carrierServices: ["SIGNATURE"],
        transitTime: { minTransitDays: 1, maxTransitDays: 2 },
        countAsTransitDayBefore: "14:00",
      },
    ],
    trackAndTraceUrl: "https://track.example/{id}",
  });

  it("PUT replaces every field on the current version; 409 when stale; what it omits is gone", async () => {
    const c = await createCarrier();
    await configOf(c.id);
    const res = await api("PUT", `/api/carriers/${c.id}/configuration`, fullConfig(c.id, 1));
    expect(res.status, res.text).toBe(200);
    conformant("CarrierConfiguration", res.body);
    const {
      version: _v,
      nonDeliveryDaysPerCountryAndProvince: _n,
      countryServiceMappings: _m,
      ...rest
    } = fullConfig(c.id, 1);
    expect(res.body).toMatchObject({ ...rest, version: 2 });
    expect(res.body.nonDeliveryDaysPerCountryAndProvince[0].nonDeliveryDays).toEqual([
      { nonDeliveryDay: "2026-12-25", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2026-12-31", nonDeliveryType: "SINGLE" },
    ]);
    expect(res.body.countryServiceMappings[0]).toMatchObject({
      id: "ccsm-1",
      carrierServices: ["SIGNATURE"],
      countAsTransitDayBefore: "14:00",
    });
    expect(await configOf(c.id)).toEqual(res.body);

    const stale = await api("PUT", `/api/carriers/${c.id}/configuration`, fullConfig(c.id, 1));
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });

    const slim = await api("PUT", `/api/carriers/${c.id}/configuration`, {
      version: 2,
      carrierRef: c.id,
      returnLabel: false,
    });
    expect(slim.status, slim.text).toBe(200);
    expect(slim.body).toEqual({
      id: res.body.id,
      version: 3,
      created: res.body.created,
      lastModified: expect.any(String),
      carrierRef: c.id,
      returnLabel: false,
      mustBeWeighed: false,
      countryServiceMappings: [],
      nonDeliveryDaysPerCountryAndProvince: [],
    });
  });

  it("PUT: 400 per kind of bad input, 404 for an unknown carrier", async () => {
    const c = await createCarrier();
    const base = fullConfig(c.id, 1);
    const cases: [string, Record<string, unknown>][] = [
      ["version", { ...base, version: undefined }],
      ["returnLabel", { ...base, returnLabel: undefined }],
      ["carrierRef", { ...base, carrierRef: UNKNOWN }],
      ["fallBackTrackAndTraceEmail", { ...base, fallBackTrackAndTraceEmail: "not-an-email" }],
      [
        "defaultPickUpTime",
        { ...base, defaultPickUpTime: { start: { hour: 24, minute: 0 }, end: { hour: 1, minute: 0 } } },
      ],
      [
        "defaultPickUpTime",
        { ...base, defaultPickUpTime: { start: { hour: 18, minute: 0 }, end: { hour: 9, minute: 0 } } },
      ],
      [
        "nonDeliveryDay",
        {
          ...base,
          nonDeliveryDaysPerCountryAndProvince: [
            {
              ...base.nonDeliveryDaysPerCountryAndProvince[0],
              nonDeliveryDays: [{ nonDeliveryDay: "2026-02-30" }],
            },
          ],
        },
      ],
      [
        "recurringNonDeliveryWeekdays",
        {
          ...base,
          nonDeliveryDaysPerCountryAndProvince: [
            { ...base.nonDeliveryDaysPerCountryAndProvince[0], recurringNonDeliveryWeekdays: ["HOLIDAY"] },
          ],
        },
      ],
      [
        "countAsTransitDayBefore",
        {
          ...base,
          countryServiceMappings: [{ ...base.countryServiceMappings[0], countAsTransitDayBefore: "24:30" }],
        },
      ],
      [
        "destinations",
        { ...base, countryServiceMappings: [{ ...base.countryServiceMappings[0], destinations: [] }] },
      ],
      [
        "id",
        { ...base, countryServiceMappings: [base.countryServiceMappings[0], base.countryServiceMappings[0]] },
      ],
      [
        "priceRange",
        {
          ...base,
          thresholdPriceValue: {
            priority: 1,
            priceRange: { from: 500, to: 100, currency: "EUR", decimalPlaces: 2 },
          },
        },
      ],
      [
        "companyName",
        { ...base, alternativeSendAddress: { street: "a", postalCode: "1", city: "c", country: "DE" } },
      ],
    ];
    for (const [field, body] of cases) {
      const res = await api("PUT", `/api/carriers/${c.id}/configuration`, body);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), field).toContain(field);
    }
    expect((await configOf(c.id)).version).toBe(1);
    expect(
      (await api("PUT", `/api/carriers/${UNKNOWN}/configuration`, { ...base, carrierRef: UNKNOWN })).status,
    ).toBe(404);
  });
});

describe("country service mappings", () => {
  it("create, list, get, PATCH, DELETE; each write names and moves the configuration's version", async () => {
    const c = await createCarrier();
    const created = await api("POST", mappingsPath(c.id), mappingBody(1));
    expect(created.status, created.text).toBe(201);
    conformant("CarrierCountryServiceMapping", created.body);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      source: { countryCode: "DE" },
      destinations: [{ countryCode: "DE" }, { countryCode: "AT", postalCodes: ["1010"] }],
      transitTime: { minTransitDays: 1, maxTransitDays: 3 },
      countAsTransitDayBefore: "12:00",
    });
    expect(created.body).not.toHaveProperty("carrierConfigurationVersion");
    const id = created.body.id;
    expect((await configOf(c.id)).version).toBe(2);

    const list = await api("GET", mappingsPath(c.id));
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    for (const m of list.body) conformant("CarrierCountryServiceMapping", m);
    expect((await api("GET", `${mappingsPath(c.id)}/${id}`)).body).toEqual(created.body);

    const patched = await api("PATCH", `${mappingsPath(c.id)}/${id}`, {
      carrierConfigurationVersion: 2,
      countAsTransitDayBefore: "15:30",
      transitTime: { minTransitDays: 2, maxTransitDays: 2 },
    });
    expect(patched.status, patched.text).toBe(200);
    conformant("CarrierCountryServiceMapping", patched.body);
    expect(patched.body).toMatchObject({
      id,
      countAsTransitDayBefore: "15:30",
      transitTime: { minTransitDays: 2, maxTransitDays: 2 },
      products: ["PAKET"],
      destinations: created.body.destinations,
    });
    const config = await configOf(c.id);
    expect(config.version).toBe(3);
    expect(config.countryServiceMappings).toEqual([patched.body]);

    const stale = await api("PATCH", `${mappingsPath(c.id)}/${id}`, {
      carrierConfigurationVersion: 2,
      products: ["late"],
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 2, version: 3 });
    const staleCreate = await api("POST", mappingsPath(c.id), mappingBody(1));
    expect(staleCreate.status).toBe(409);

    const deleted = await api("DELETE", `${mappingsPath(c.id)}/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe("");
    expect((await api("GET", `${mappingsPath(c.id)}/${id}`)).status).toBe(404);
    expect((await api("DELETE", `${mappingsPath(c.id)}/${id}`)).status).toBe(404);
    expect(
      (await api("PATCH", `${mappingsPath(c.id)}/${id}`, { carrierConfigurationVersion: 4 })).status,
    ).toBe(404);
    expect((await configOf(c.id)).version).toBe(4);
    expect((await api("GET", mappingsPath(c.id))).body).toEqual([]);
  });

  it("a mapping write before any read creates the configuration (version 1) first", async () => {
    const c = await createCarrier();
    const res = await api("POST", mappingsPath(c.id), mappingBody(1));
    expect(res.status, res.text).toBe(201);
    expect((await configOf(c.id)).version).toBe(2);
  });

  it("maps the deprecated sourceCountry and destinationCountries onto source and destinations", async () => {
    const c = await createCarrier();
    // destinations is required on creation: given with the old field, it wins.
    const res = await api("POST", mappingsPath(c.id), {
      carrierConfigurationVersion: 1,
      source: { countryCode: "DE" },
      destinations: [{ countryCode: "DE" }, { countryCode: "FR" }],
      destinationCountries: ["PL"],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.destinations).toEqual([{ countryCode: "DE" }, { countryCode: "FR" }]);
    expect(res.body.destinationCountries).toEqual(["DE", "FR"]);
    expect(res.body.sourceCountry).toBe("DE");
    const patched = await api("PATCH", `${mappingsPath(c.id)}/${res.body.id}`, {
      carrierConfigurationVersion: 2,
      sourceCountry: "AT",
      destinationCountries: ["CH"],
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.source).toEqual({ countryCode: "AT" });
    expect(patched.body.destinations).toEqual([{ countryCode: "CH" }]);
    conformant("CarrierCountryServiceMapping", patched.body);
  });

  it("drops additional attributes that repeat a mandatory one", async () => {
    const c = await createCarrier();
    const attr = (referencedField: string) => ({
      referencedField,
      dataType: "NUMBER",
      category: "customs",
      descriptionLocalized: { en_US: referencedField },
    });
    const res = await api("POST", mappingsPath(c.id), {
      ...mappingBody(1),
      mandatoryShippingArticleAttributes: [attr("attributes.hsCode")],
      additionalShippingArticleAttributes: [attr("attributes.hsCode"), attr("attributes.weightPerUnit")],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.additionalShippingArticleAttributes.map((a: any) => a.referencedField)).toEqual([
      "attributes.weightPerUnit",
    ]);
  });

  it("400 per kind of bad input; 404 for an unknown carrier or mapping; reading needs CARRIER_WRITE", async () => {
    const c = await createCarrier();
    const { carrierConfigurationVersion: _v, ...noVersion } = mappingBody(1);
    const { destinations: _d, ...noDestinations } = mappingBody(1);
    const { source: _s, ...noSource } = mappingBody(1);
    const cases: [string, Record<string, unknown>][] = [
      ["carrierConfigurationVersion", noVersion],
      ["destinations", noDestinations],
      ["destinations", mappingBody(1, { destinations: [] })],
      ["source", noSource],
      ["countAsTransitDayBefore", mappingBody(1, { countAsTransitDayBefore: "24:30" })],
      ["countAsTransitDayBefore", mappingBody(1, { countAsTransitDayBefore: "noon" })],
      ["transitTime", mappingBody(1, { transitTime: { minTransitDays: 3, maxTransitDays: 1 } })],
      ["minTransitDays", mappingBody(1, { transitTime: { minTransitDays: -1, maxTransitDays: 1 } })],
      ["carrierProductCategory", mappingBody(1, { carrierProductCategory: "ROCKET" })],
      ["countryCode", mappingBody(1, { source: { countryCode: "DEU" } })],
      ["deliveryCosts", mappingBody(1, { deliveryCosts: [] })],
    ];
    for (const [field, body] of cases) {
      const res = await api("POST", mappingsPath(c.id), body);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), field).toContain(field);
    }
    const ok = await api("POST", mappingsPath(c.id), mappingBody(1));
    expect(ok.status).toBe(201);
    const patchBad = await api("PATCH", `${mappingsPath(c.id)}/${ok.body.id}`, {
      countAsTransitDayBefore: "10:00",
    });
    expect(patchBad.status).toBe(400);
    expect(patchBad.text).toContain("carrierConfigurationVersion");
    const patch2430 = await api("PATCH", `${mappingsPath(c.id)}/${ok.body.id}`, {
      carrierConfigurationVersion: 2,
      countAsTransitDayBefore: "24:30",
    });
    expect(patch2430.status).toBe(400);

    expect((await api("GET", mappingsPath(UNKNOWN))).status).toBe(404);
    expect((await api("POST", mappingsPath(UNKNOWN), mappingBody(1))).status).toBe(404);
    expect((await api("GET", `${mappingsPath(c.id)}/${UNKNOWN}`)).status).toBe(404);
    expect((await reader("GET", mappingsPath(c.id))).status).toBe(403);
    expect((await reader("GET", `/api/carriers/${c.id}/configuration`)).status).toBe(200);
    expect((await reader("POST", "/api/carriers", { key: "UPS", name: "x" })).status).toBe(403);
  });
});

describe("transit time configuration (beta)", () => {
  it("404 until the first PUT, which creates it; versioned updates after; strategy EARLIEST or LATEST", async () => {
    const as = sys.as(await sys.token(`tt-${randomBytes(3).toString("hex")}`));
    const missing = await as("GET", "/api/configurations/transittime");
    expect(missing.status).toBe(404);
    expect(missing.body[0].summary).toEqual(expect.any(String));
    const created = await as("PUT", "/api/configurations/transittime", {
      version: 0,
      calculationStrategy: "EARLIEST",
    });
    expect(created.status, created.text).toBe(200);
    conformant("TransitTimeConfiguration", created.body);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      version: 1,
      calculationStrategy: "EARLIEST",
    });
    expect((await as("GET", "/api/configurations/transittime")).body).toEqual(created.body);
    const stale = await as("PUT", "/api/configurations/transittime", {
      version: 0,
      calculationStrategy: "LATEST",
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 0, version: 1 });
    const updated = await as("PUT", "/api/configurations/transittime", {
      version: 1,
      calculationStrategy: "LATEST",
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, version: 2, calculationStrategy: "LATEST" });
    for (const body of [
      { version: 2, calculationStrategy: "FASTEST" },
      { version: 2 },
      { calculationStrategy: "LATEST" },
    ]) {
      const res = await as("PUT", "/api/configurations/transittime", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await as("GET", "/api/configurations/transittime")).body.version).toBe(2);
  });
});

describe("delivery date estimate (RPC)", () => {
  it("answers earliest and latest from the mapping, the cut-off, the non-delivery days and the strategy", async () => {
    const tenant = `eta-${randomBytes(3).toString("hex")}`;
    const as = sys.as(await sys.token(tenant));
    const c = await createCarrier({}, as);
    await configOf(c.id, as);
    const put = await as("PUT", `/api/carriers/${c.id}/configuration`, {
      version: 1,
      carrierRef: c.id,
      returnLabel: false,
      nonDeliveryDaysPerCountryAndProvince: [
        {
          country: "DE",
          nonDeliveryDays: [{ nonDeliveryDay: "2025-12-25", nonDeliveryType: "RECURRING" }],
          recurringNonDeliveryWeekdays: ["SATURDAY", "SUNDAY"],
          nonDeliveryDaysPerProvince: [
            {
              province: "BY",
              nonDeliveryDays: [{ nonDeliveryDay: "2026-12-28" }],
              recurringNonDeliveryWeekdays: [],
            },
          ],
        },
      ],
      countryServiceMappings: [
        {
          id: "de-de",
          source: { countryCode: "DE" },
          destinations: [{ countryCode: "DE" }],
          transitTime: { minTransitDays: 1, maxTransitDays: 3 },
          countAsTransitDayBefore: "12:00",
        },
      ],
    });
    expect(put.status, put.text).toBe(200);
    const client = createClient(
      CarriersService,
      createConnectTransport({
        baseUrl: sys.services.carriers.rpcUrl,
        httpVersion: "2",
        interceptors: [bearerInterceptor(testCredentials)],
      }),
    );
    const ctx = {
      tenant,
      principal: { userId: "u", username: "u", roles: [], permissions: [] },
      client: { api: "RPC", rawInfo: "test" },
    };
    const ask = (handoverAt: string, province = "") =>
      client.estimateDeliveryDates(
        {
          carrierId: c.id,
          handoverAt,
          timeZone: "Europe/Berlin",
          source: { countryCode: "DE", postalCode: "40764" },
          destination: { countryCode: "DE", postalCode: "80331", province },
        },
        callOptions(ctx),
      );
    // Thursday 2026-12-24, 10:00 in Berlin (before the cut-off): ships that day; the 25th
    // (recurring), the weekend and, in Bavaria, the 28th deliver nothing.
    const before = await ask("2026-12-24T09:00:00Z");
    expect(before).toMatchObject({
      countryServiceMappingId: "de-de",
      shippingDate: "2026-12-24",
      earliestDeliveryDate: "2026-12-28",
      latestDeliveryDate: "2026-12-30",
      deliveryDate: "2026-12-28",
      calculationStrategy: "EARLIEST",
      minTransitDays: 1,
      maxTransitDays: 3,
    });
    const bavaria = await ask("2026-12-24T09:00:00Z", "BY");
    expect([bavaria.earliestDeliveryDate, bavaria.latestDeliveryDate]).toEqual(["2026-12-29", "2026-12-31"]);
    // 12:30 in Berlin: after the cut-off, the 24th does not count; the next working day is the 28th.
    const after = await ask("2026-12-24T11:30:00Z");
    expect([after.shippingDate, after.earliestDeliveryDate]).toEqual(["2026-12-28", "2026-12-29"]);

    await as("PUT", "/api/configurations/transittime", { version: 0, calculationStrategy: "LATEST" });
    const latest = await ask("2026-12-24T09:00:00Z");
    expect(latest).toMatchObject({ calculationStrategy: "LATEST", deliveryDate: "2026-12-30" });

    await expect(
      client.estimateDeliveryDates(
        {
          carrierId: c.id,
          handoverAt: "2026-12-24T09:00:00Z",
          source: { countryCode: "DE" },
          destination: { countryCode: "US" },
        },
        callOptions(ctx),
      ),
    ).rejects.toThrow(/NO_MAPPING_FOR_ROUTE|country service mapping/);
    await expect(
      client.estimateDeliveryDates(
        {
          carrierId: c.id,
          handoverAt: "yesterday",
          source: { countryCode: "DE" },
          destination: { countryCode: "DE" },
        },
        callOptions(ctx),
      ),
    ).rejects.toThrow(/handoverAt/);
    await expect(
      client.estimateDeliveryDates(
        {
          carrierId: UNKNOWN,
          handoverAt: "2026-12-24T09:00:00Z",
          source: { countryCode: "DE" },
          destination: { countryCode: "DE" },
        },
        callOptions(ctx),
      ),
    ).rejects.toThrow(/carrier/);
  });
});

describe("tenancy and audit", () => {
  it("tenant B can read, list and change nothing of tenant A's; keys are per tenant", async () => {
    const c = await createCarrier({ key: "CUSTOM_SHARED" });
    const mapping = (await api("POST", mappingsPath(c.id), mappingBody(1))).body;
    expect((await other("GET", `/api/carriers/${c.id}`)).status).toBe(404);
    expect(
      (
        await other("PATCH", `/api/carriers/${c.id}`, {
          version: 1,
          actions: [{ action: "ModifyCarrier", name: "x" }],
        })
      ).status,
    ).toBe(404);
    expect((await other("GET", `/api/carriers/${c.id}/configuration`)).status).toBe(404);
    expect(
      (
        await other("PUT", `/api/carriers/${c.id}/configuration`, {
          version: 2,
          carrierRef: c.id,
          returnLabel: true,
        })
      ).status,
    ).toBe(404);
    expect((await other("GET", mappingsPath(c.id))).status).toBe(404);
    expect((await other("POST", mappingsPath(c.id), mappingBody(2))).status).toBe(404);
    expect((await other("GET", `${mappingsPath(c.id)}/${mapping.id}`)).status).toBe(404);
    expect(
      (await other("PATCH", `${mappingsPath(c.id)}/${mapping.id}`, { carrierConfigurationVersion: 2 }))
        .status,
    ).toBe(404);
    expect((await other("DELETE", `${mappingsPath(c.id)}/${mapping.id}`)).status).toBe(404);
    const theirs = await other("GET", "/api/carriers?size=500");
    expect(theirs.body.carriers.map((x: any) => x.id)).not.toContain(c.id);
    expect((await other("POST", "/api/carriers", { key: "CUSTOM_SHARED", name: "Globex's" })).status).toBe(
      201,
    );
    const config = await configOf(c.id);
    expect(config.version).toBe(2);
    expect(config.countryServiceMappings).toEqual([mapping]);
    expect((await api("GET", `/api/carriers/${c.id}`)).body.version).toBe(1);
  });

  it("carrier, configuration and mapping changes reach the audit log", async () => {
    const c = await createCarrier();
    await api("PATCH", `/api/carriers/${c.id}`, {
      version: 1,
      actions: [{ action: "ModifyCarrier", name: "n" }],
    });
    const config = await configOf(c.id);
    const m = (await api("POST", mappingsPath(c.id), mappingBody(1))).body;
    await api("PATCH", `${mappingsPath(c.id)}/${m.id}`, { carrierConfigurationVersion: 2, products: ["X"] });
    await api("DELETE", `${mappingsPath(c.id)}/${m.id}`);
    await api("PUT", `/api/carriers/${c.id}/configuration`, {
      version: 4,
      carrierRef: c.id,
      returnLabel: true,
    });
    const carrierTrail = await auditsOf(c.id, 2);
    expect(carrierTrail.map((a) => [a.operation.name, a.entityType, a.entityVersion])).toEqual([
      ["CARRIER_CREATED", "CARRIER", 1],
      ["CARRIER_UPDATED", "CARRIER", 2],
    ]);
    const configTrail = await auditsOf(config.id, 2);
    expect(configTrail.map((a) => [a.operation.name, a.entityVersion])).toEqual([
      ["CARRIER_CONFIGURATION_CREATED", 1],
      ["CARRIER_CONFIGURATION_UPDATED", 5],
    ]);
    const mappingTrail = await auditsOf(m.id, 3);
    expect(mappingTrail.map((a) => [a.operation.name, a.entityType, a.entityVersion])).toEqual([
      ["CARRIER_COUNTRY_SERVICE_MAPPING_CREATED", "CARRIER_COUNTRY_SERVICE_MAPPING", 2],
      ["CARRIER_COUNTRY_SERVICE_MAPPING_UPDATED", "CARRIER_COUNTRY_SERVICE_MAPPING", 3],
      ["CARRIER_COUNTRY_SERVICE_MAPPING_DELETED", "CARRIER_COUNTRY_SERVICE_MAPPING", 4],
    ]);
  });
});
