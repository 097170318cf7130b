/**
 * Currencies through the gateway: every request field that takes a currency takes an ISO 4217 code
 * and nothing else. "QQQ" (three capital letters, no currency) is a 400 naming the field, on every
 * endpoint that takes one; real codes (EUR, CHF) are accepted and read back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type ApiResponse, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let facilityId: string;
let carrierKeys = 0;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "cora.currency" }));
  facilityId = (await api("POST", "/api/facilities", { name: "Store 1", address: facilityAddress })).body.id;
});
afterAll(() => sys?.close());

const ok = (res: ApiResponse, status: number) => {
  expect(res.status, res.text).toBe(status);
  return res.body;
};

/** A job with one returnable line (`prices` on its article when given). */
async function itemReturnJob(prices?: unknown[]) {
  return api("POST", "/api/itemreturnjobs", {
    originFacilityRefs: [facilityId],
    status: "OPEN",
    consumerAddresses: [facilityAddress],
    returnableLineItems: [
      { article: { tenantArticleId: "A-1", title: "Shirt", ...(prices ? { prices } : {}) }, delivered: 2 },
    ],
  });
}
/** A job with one OPEN item return: the job, the return and its first line. */
async function itemReturn() {
  const job = ok(await itemReturnJob(), 200);
  const added = ok(
    await api("POST", `/api/itemreturnjobs/${job.id}/itemreturns`, {
      itemReturnJobVersion: job.version,
      itemReturnForCreation: {
        status: "OPEN",
        returnFacilityRef: facilityId,
        returnedLineItems: [{ itemReturnJobLineItemRef: job.returnableLineItems[0].id, status: "OPEN" }],
      },
    }),
    200,
  );
  return { job: added, ir: added.itemReturns[0] };
}
async function carrier() {
  return ok(await api("POST", "/api/carriers", { key: `CUSTOM_CUR${++carrierKeys}`, name: "Carrier" }), 201);
}
async function carrierConfigPut(fields: (currency: string) => Record<string, unknown>, currency: string) {
  const c = await carrier();
  const config = ok(await api("GET", `/api/carriers/${c.id}/configuration`), 200);
  return api("PUT", `/api/carriers/${c.id}/configuration`, {
    version: config.version,
    carrierRef: c.id,
    returnLabel: false,
    ...fields(currency),
  });
}

interface Case {
  /** The endpoint and the field, as the test names it. */
  name: string;
  /** The field's path in the 400's description (Ajv's instance path). */
  field: string;
  /** Sends a request whose currency field is `currency`, on fresh prerequisites. */
  send: (currency: string) => Promise<ApiResponse>;
  /** The status of an accepted request. */
  accepted: number;
  /** The currency as the answer reads it back (for an accepted request). */
  readBack: (body: any) => unknown;
}

const cases: Case[] = [
  {
    name: "POST /api/pickjobs paymentInformation.currency",
    field: "body/paymentInformation/currency",
    send: (currency) =>
      api("POST", "/api/pickjobs", pickJobBody(facilityId, { paymentInformation: { currency } })),
    accepted: 201,
    readBack: (job) => job.paymentInformation.currency,
  },
  {
    name: "POST /api/pickjobs pickLineItems[].article.prices[].currency",
    field: "body/pickLineItems/0/article/prices/0/currency",
    send: (currency) => {
      const body = pickJobBody(facilityId) as any;
      body.pickLineItems[0].article.prices = [{ currency, pricePerUnit: 9.99 }];
      return api("POST", "/api/pickjobs", body);
    },
    accepted: 201,
    readBack: (job) => job.pickLineItems[0].article.prices[0].currency,
  },
  {
    name: "PATCH /api/pickjobs/{id} ModifyPickJob paymentInformation.currency (deprecated)",
    field: "/paymentInformation/currency",
    send: async (currency) => {
      const job = ok(await api("POST", "/api/pickjobs", pickJobBody(facilityId)), 201);
      return api("PATCH", `/api/pickjobs/${job.id}`, {
        version: job.version,
        actions: [{ action: "ModifyPickJob", paymentInformation: { currency } }],
      });
    },
    accepted: 200,
    readBack: (job) => job.paymentInformation.currency,
  },
  {
    name: "POST /api/itemreturnjobs returnableLineItems[].article.prices[].currency",
    field: "body/returnableLineItems/0/article/prices/0/currency",
    send: (currency) => itemReturnJob([{ currency, pricePerUnit: 20 }]),
    accepted: 200,
    readBack: (job) => job.returnableLineItems[0].article.prices[0].currency,
  },
  {
    name: "PATCH .../returnedlineitems/{id} refund.price.currency",
    field: "body/refund/price/currency",
    send: async (currency) => {
      const { job, ir } = await itemReturn();
      return api(
        "PATCH",
        `/api/itemreturnjobs/${job.id}/itemreturns/${ir.id}/returnedlineitems/${ir.returnedLineItems[0].id}`,
        { itemReturnJobVersion: job.version, refund: { status: "OPEN", price: { value: 5, currency } } },
      );
    },
    accepted: 200,
    readBack: (job) => job.itemReturns[0].returnedLineItems[0].refund.price.currency,
  },
  ...(
    [
      [
        "productValueCurrency.currency",
        "body/productValueCurrency/currency",
        (c: string) => ({ productValueCurrency: { currency: c } }),
        (p: any) => p.productValueCurrency.currency,
      ],
      [
        "paymentInformation.currency",
        "body/paymentInformation/currency",
        (c: string) => ({ paymentInformation: { currency: c } }),
        (p: any) => p.paymentInformation.currency,
      ],
      [
        "items[].parcelItemValue.currency",
        "body/items/0/parcelItemValue/currency",
        (c: string) => ({
          items: [
            {
              quantity: 1,
              article: { tenantArticleId: "A-1", title: "Shirt" },
              parcelItemValue: { value: 20, currency: c },
            },
          ],
        }),
        (p: any) => p.items[0].parcelItemValue.currency,
      ],
    ] as const
  ).map(
    ([what, field, fields, readBack]): Case => ({
      name: `POST .../itemreturns/{id}/parcels ${what}`,
      field,
      send: async (currency) => {
        const [{ job, ir }, c] = await Promise.all([itemReturn(), carrier()]);
        return api("POST", `/api/itemreturnjobs/${job.id}/itemreturns/${ir.id}/parcels`, {
          carrierRef: c.id,
          items: [{ quantity: 1, article: { tenantArticleId: "A-1", title: "Shirt" } }],
          ...fields(currency),
        });
      },
      accepted: 201,
      readBack,
    }),
  ),
  {
    name: "POST .../countryservicemappings deliveryCosts[].currency",
    field: "body/deliveryCosts/0/currency",
    send: async (currency) => {
      const c = await carrier();
      const config = ok(await api("GET", `/api/carriers/${c.id}/configuration`), 200);
      return api("POST", `/api/carriers/${c.id}/configuration/countryservicemappings`, {
        carrierConfigurationVersion: config.version,
        source: { countryCode: "DE" },
        destinations: [{ countryCode: "DE" }],
        deliveryCosts: [{ cost: 4.99, currency }],
      });
    },
    accepted: 201,
    readBack: (m) => m.deliveryCosts[0].currency,
  },
  {
    name: "PUT /api/carriers/{id}/configuration thresholdPriceValue.priceRange.currency",
    field: "body/thresholdPriceValue/priceRange/currency",
    send: (currency) =>
      carrierConfigPut(
        (c) => ({
          thresholdPriceValue: {
            priority: 1,
            priceRange: { from: 0, to: 100, currency: c, decimalPlaces: 2 },
          },
        }),
        currency,
      ),
    accepted: 200,
    readBack: (config) => config.thresholdPriceValue.priceRange.currency,
  },
  {
    name: "PUT /api/carriers/{id}/configuration defaultPriceCurrency",
    field: "body/defaultPriceCurrency",
    send: (currency) =>
      carrierConfigPut((c) => ({ defaultPriceValue: 10, defaultPriceCurrency: c }), currency),
    accepted: 200,
    readBack: (config) => config.defaultPriceCurrency,
  },
  {
    name: "POST /api/facilities operativeCosts[].currency",
    field: "body/operativeCosts/0/currency",
    send: (currency) =>
      api("POST", "/api/facilities", {
        name: "Costly",
        address: facilityAddress,
        operativeCosts: [{ value: 100, currency, decimalPlaces: 2 }],
      }),
    accepted: 201,
    readBack: (f) => f.operativeCosts[0].currency,
  },
];

describe("currencies are ISO 4217 codes on every endpoint that takes one", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s: QQQ is a 400 naming the field", async (_, c) => {
    const res = await c.send("QQQ");
    expect(res.status, res.text).toBe(400);
    expect(res.body[0].code).toBe("VALIDATION_FAILED");
    expect(res.body[0].description).toContain(c.field);
    expect(res.body[0].description).toMatch(/CurrencyCode/);
    for (const almost of ["eur", "EURO", ""]) expect((await c.send(almost)).status, almost).toBe(400);
  });

  it.each(cases.map((c) => [c.name, c] as const))("%s: EUR and CHF are accepted", async (_, c) => {
    for (const currency of ["EUR", "CHF"]) {
      const res = await c.send(currency);
      expect(res.status, `${currency}: ${res.text}`).toBe(c.accepted);
      expect(c.readBack(res.body), currency).toBe(currency);
    }
  });
});
