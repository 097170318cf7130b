/**
 * One article, one set of limits, through the gateway: every family's line item article (pick job
 * lines, load unit lines, item return job lines) refuses more than 50 attributes and a negative
 * weight with a 400 naming the field, exactly as pick line articles do, and takes 50 attributes and
 * weight 0 (read back as sent).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { type ApiResponse, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let facilityId: string;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "arti.limits" }));
  facilityId = (await api("POST", "/api/facilities", { name: "Store 1", address: facilityAddress })).body.id;
});
afterAll(() => sys?.close());

const attributes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}`, type: "STRING" }));
const article = (extra: Record<string, unknown>) => ({ tenantArticleId: "A-1", title: "Tea", ...extra });
async function pickJob() {
  const res = await api("POST", "/api/pickjobs", pickJobBody(facilityId));
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; version: number };
}

interface Family {
  name: string;
  /** Where the article sits in the request (Ajv's instance path, after `body`). */
  at: string;
  /** Sends a request whose (first) article is `a`. */
  send: (a: Record<string, unknown>) => Promise<ApiResponse>;
  accepted: number;
  /** The stored article, read back after an accepted request. */
  readBack: (res: ApiResponse) => Promise<any>;
}

const families: Family[] = [
  {
    name: "pick line articles (POST /api/pickjobs)",
    at: "body/pickLineItems/0/article",
    send: (a) =>
      api("POST", "/api/pickjobs", {
        ...pickJobBody(facilityId),
        pickLineItems: [{ article: a, quantity: 1 }],
      }),
    accepted: 201,
    readBack: async (res) => (await api("GET", `/api/pickjobs/${res.body.id}`)).body.pickLineItems[0].article,
  },
  {
    name: "load unit line articles (POST /api/loadunits)",
    at: "body/loadUnits/0/loadUnitLineItems/0/article",
    send: async (a) => {
      const job = await pickJob();
      return api("POST", "/api/loadunits", {
        loadUnits: [{ pickJobRefs: [job.id], loadUnitLineItems: [{ article: a, quantity: 1 }] }],
      });
    },
    accepted: 201,
    readBack: async (res) =>
      (await api("GET", `/api/loadunits/${res.body[0].id}`)).body.loadUnitLineItems[0].article,
  },
  {
    name: "load unit line articles (POST /api/pickjobs/{id}/loadunits)",
    at: "body/loadUnitLineItems/0/article",
    send: async (a) => {
      const job = await pickJob();
      return api("POST", `/api/pickjobs/${job.id}/loadunits`, {
        codes: ["LU-1"],
        loadUnitLineItems: [{ article: a, quantity: 1 }],
      });
    },
    accepted: 201,
    readBack: async (res) =>
      (await api("GET", `/api/loadunits/${res.body.id}`)).body.loadUnitLineItems[0].article,
  },
  {
    name: "load unit line articles (PATCH /api/loadunits/{id} ReplaceLoadUnitLineItems, deprecated)",
    at: "body/actions/0/loadUnitLineItems/0/article",
    send: async (a) => {
      const job = await pickJob();
      const created = await api("POST", "/api/loadunits", { loadUnits: [{ pickJobRefs: [job.id] }] });
      expect(created.status, created.text).toBe(201);
      return api("PATCH", `/api/loadunits/${created.body[0].id}`, {
        version: created.body[0].version,
        actions: [
          { action: "ReplaceLoadUnitLineItems", loadUnitLineItems: [{ id: "L1", article: a, quantity: 1 }] },
        ],
      });
    },
    accepted: 200,
    readBack: async (res) =>
      (await api("GET", `/api/loadunits/${res.body.id}`)).body.loadUnitLineItems[0].article,
  },
  {
    name: "item return job line articles (POST /api/itemreturnjobs, returnable)",
    at: "body/returnableLineItems/0/article",
    send: (a) =>
      api("POST", "/api/itemreturnjobs", {
        originFacilityRefs: [facilityId],
        status: "OPEN",
        consumerAddresses: [facilityAddress],
        returnableLineItems: [{ article: a, delivered: 1 }],
      }),
    accepted: 200,
    readBack: async (res) =>
      (await api("GET", `/api/itemreturnjobs/${res.body.id}`)).body.returnableLineItems[0].article,
  },
  {
    name: "item return job line articles (POST /api/itemreturnjobs, not returnable)",
    at: "body/notReturnableLineItems/0/article",
    send: (a) =>
      api("POST", "/api/itemreturnjobs", {
        originFacilityRefs: [facilityId],
        status: "OPEN",
        consumerAddresses: [facilityAddress],
        returnableLineItems: [{ article: article({}), delivered: 1 }],
        notReturnableLineItems: [{ article: a, delivered: 1 }],
      }),
    accepted: 200,
    readBack: async (res) =>
      (await api("GET", `/api/itemreturnjobs/${res.body.id}`)).body.notReturnableLineItems[0].article,
  },
];

describe("every family's line item article has the same limits", () => {
  it.each(families.map((f) => [f.name, f] as const))(
    "%s: 51 attributes and weight -5 are 400s naming the field",
    async (_, f) => {
      const tooMany = await f.send(article({ attributes: attributes(51) }));
      expect(tooMany.status, tooMany.text).toBe(400);
      expect(tooMany.body[0].code).toBe("VALIDATION_FAILED");
      expect(tooMany.body[0].description).toBe(`${f.at}/attributes must NOT have more than 50 items.`);

      const negative = await f.send(article({ weight: -5 }));
      expect(negative.status, negative.text).toBe(400);
      expect(negative.body[0].code).toBe("VALIDATION_FAILED");
      expect(negative.body[0].description).toBe(`${f.at}/weight must be >= 0.`);
    },
  );

  it.each(families.map((f) => [f.name, f] as const))(
    "%s: 50 attributes and weight 0 are accepted and read back",
    async (_, f) => {
      const res = await f.send(article({ attributes: attributes(50), weight: 0 }));
      expect(res.status, res.text).toBe(f.accepted);
      const stored = await f.readBack(res);
      expect(stored.attributes).toEqual(attributes(50));
      expect(stored.weight).toBe(0);
    },
  );
});
