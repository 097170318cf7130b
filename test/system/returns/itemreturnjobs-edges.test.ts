/**
 * Edges of the returns feature through the gateway, beside reasons.test.ts, itemreturnjobs.test.ts
 * and itemreturns.test.ts: cancelation reasons and reroute descriptions, item return job creation,
 * the job actions, the return configuration and the two lists' page size. A missing field and a
 * limit one over answer 400 naming the field and store nothing (the version, the list's total or
 * the configuration as it was); exactly at a limit is accepted; a stale version on the line item
 * actions is 409; the return configuration belongs to its tenant.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { type ApiResponse, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
/** 51 facilities of acme's: one more than the 50 origin facilities a job may name. */
const facilities: string[] = [];

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "rita.returns" }));
  for (let i = 0; i < 51; i++) {
    const res = await api("POST", "/api/facilities", { name: `Returns desk ${i}`, address: facilityAddress });
    expect(res.status, res.text).toBe(201);
    facilities.push(res.body.id);
  }
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};
/** 400 whose description names `field` as a whole word ("reason" is not "reasonLocalized"). */
const rejected = (res: ApiResponse, field: string) => {
  expect(res.status, res.text).toBe(400);
  expect(res.body[0].description, res.text).toMatch(new RegExp(`(^|[^A-Za-z])${field}([^A-Za-z]|$)`));
};
const without = (value: Record<string, unknown>, key: string) => {
  const { [key]: _, ...rest } = value;
  return rest;
};
const tenantOf = async (prefix: string) =>
  sys.as(await sys.token(`${prefix}-${randomBytes(3).toString("hex")}`));

describe.each([
  { path: "/api/cancelationreasons", schema: "CancelationReason" },
  { path: "/api/reroutedescriptions", schema: "RerouteDescription" },
])("$path", ({ path, schema }) => {
  const body = (reason: string) => ({ reason, reasonLocalized: { en_US: reason } });
  /** A text of exactly `length` characters, unique per call. */
  const text = (length: number) => `${randomBytes(4).toString("hex")}${"r".repeat(length)}`.slice(0, length);
  const create = async () => {
    const res = await api("POST", path, body(text(40)));
    expect(res.status, res.text).toBe(201);
    return res.body as Record<string, any>;
  };

  it.each(["reason", "reasonLocalized"])(
    "PUT without %s: 400 naming it, the reason unchanged",
    async (field) => {
      const r = await create();
      rejected(await api("PUT", `${path}/${r.id}`, without({ version: 1, ...body(text(40)) }, field)), field);
      expect((await api("GET", `${path}/${r.id}`)).body).toEqual(r);
    },
  );

  it("POST: a reason of 1024 characters is created; 1025 is 400 and stores nothing", async () => {
    const tenant = await tenantOf("reason-limit");
    rejected(await tenant("POST", path, body(text(1025))), "reason");
    expect((await tenant("GET", path)).body.total).toBe(0);
    const at = await tenant("POST", path, body(text(1024)));
    expect(at.status, at.text).toBe(201);
    conformant(schema, at.body);
    expect(at.body.reason).toHaveLength(1024);
    expect((await tenant("GET", `${path}/${at.body.id}`)).body).toEqual(at.body);
    expect((await tenant("GET", path)).body.total).toBe(1);
  });

  it("takes 1024 characters of any script (4 KB of UTF-8: emoji, CJK), still unique by text", async () => {
    const tenant = await tenantOf("reason-wide");
    const wide = (c: string) => `${randomBytes(2).toString("hex")}${c.repeat(1020)}`;
    const cjk = wide("語");
    const emoji = wide("😀");
    for (const reason of [cjk, emoji]) {
      const res = await tenant("POST", path, body(reason));
      expect(res.status, res.text).toBe(201);
      expect(res.body.reason).toBe(reason);
    }
    const again = await tenant("POST", path, body(cjk));
    expect(again.status).toBe(303);
    expect((await tenant("GET", path)).body.total).toBe(2);
  });

  it("PUT: a reason of 1024 characters replaces it; 1025 is 400 and changes nothing", async () => {
    const r = await create();
    const at = await api("PUT", `${path}/${r.id}`, { version: 1, ...body(text(1024)) });
    expect(at.status, at.text).toBe(200);
    conformant(schema, at.body);
    expect(at.body).toMatchObject({ version: 2, reason: expect.stringMatching(/^.{1024}$/) });
    rejected(await api("PUT", `${path}/${r.id}`, { version: 2, ...body(text(1025)) }), "reason");
    expect((await api("GET", `${path}/${r.id}`)).body).toEqual(at.body);
  });
});

// --- item return jobs ----------------------------------------------------------------------------

const JOBS = "/api/itemreturnjobs";
const line = (n: number, extra: Record<string, unknown> = {}) => ({
  article: { tenantArticleId: `A-${n}`, title: `Article ${n}` },
  delivered: 2,
  ...extra,
});
const lines = (count: number, from = 0) => Array.from({ length: count }, (_, i) => line(from + i));
const codes = (count: number) => Array.from({ length: count }, (_, i) => `CODE-${i}`);
const recordables = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    keyLocalized: { en_US: `Serial ${i}` },
    recordingRule: "OPTIONAL",
  }));
const consumer = {
  firstName: "Ada",
  lastName: "Lovelace",
  street: "Hauptstr.",
  houseNumber: "1",
  postalCode: "40764",
  city: "Langenfeld",
  country: "DE",
};
const jobBody = (extra: Record<string, unknown> = {}) => ({
  originFacilityRefs: [facilities[0]],
  status: "OPEN",
  consumerAddresses: [consumer],
  returnableLineItems: [line(1), line(2)],
  ...extra,
});
const createJob = async (extra: Record<string, unknown> = {}) => {
  const res = await api("POST", JOBS, jobBody(extra));
  expect(res.status, res.text).toBe(200);
  conformant("ItemReturnJob", res.body);
  return res.body as Record<string, any>;
};
const jobTotal = async () => {
  const res = await api("GET", `${JOBS}?size=1`);
  expect(res.status, res.text).toBe(200);
  return res.body.total as number;
};
const readJob = async (id: string) => (await api("GET", `${JOBS}/${id}`)).body;
const act = (id: string, body: Record<string, unknown>) => api("POST", `${JOBS}/${id}/actions`, body);

describe("POST /api/itemreturnjobs", () => {
  it.each([
    {
      field: "originFacilityRefs",
      label: "without originFacilityRefs",
      body: () => without(jobBody(), "originFacilityRefs"),
    },
    {
      field: "delivered",
      label: "a line without delivered",
      body: () => jobBody({ returnableLineItems: [without(line(1), "delivered")] }),
    },
    {
      field: "delivered",
      label: "a not returnable line without delivered",
      body: () => jobBody({ notReturnableLineItems: [without(line(1), "delivered")] }),
    },
    {
      field: "article",
      label: "a line without article",
      body: () => jobBody({ returnableLineItems: [without(line(1), "article")] }),
    },
    {
      field: "tenantArticleId",
      label: "a line's article without tenantArticleId",
      body: () => jobBody({ returnableLineItems: [line(1, { article: { title: "No id" } })] }),
    },
  ])("$label: 400 naming $field, no job stored", async ({ field, body }) => {
    const before = await jobTotal();
    rejected(await api("POST", JOBS, body()), field);
    expect(await jobTotal()).toBe(before);
  });

  it.each([
    {
      field: "originFacilityRefs",
      max: 50,
      body: (n: number) => jobBody({ originFacilityRefs: facilities.slice(0, n) }),
      count: (job: any) => new Set(job.originFacilityRefs).size,
    },
    {
      field: "notReturnableLineItems",
      max: 100,
      body: (n: number) => jobBody({ notReturnableLineItems: lines(n) }),
      count: (job: any) => job.notReturnableLineItems.length,
    },
    {
      field: "returnableLineItems/0/scannableCodes",
      max: 50,
      body: (n: number) => jobBody({ returnableLineItems: [line(1, { scannableCodes: codes(n) })] }),
      count: (job: any) => job.returnableLineItems[0].scannableCodes.length,
    },
    {
      field: "returnableLineItems/0/recordableAttributes",
      max: 50,
      body: (n: number) =>
        jobBody({ returnableLineItems: [line(1, { recordableAttributes: recordables(n) })] }),
      count: (job: any) =>
        new Set(job.returnableLineItems[0].recordableAttributes.map((a: any) => a.id)).size,
    },
  ])(
    "$field: $max accepted; one more is 400 naming it, no job stored",
    async ({ field, max, body, count }) => {
      const before = await jobTotal();
      rejected(await api("POST", JOBS, body(max + 1)), field);
      expect(await jobTotal()).toBe(before);
      const at = await api("POST", JOBS, body(max));
      expect(at.status, at.text).toBe(200);
      conformant("ItemReturnJob", at.body);
      expect(count(at.body)).toBe(max);
      expect(await readJob(at.body.id)).toEqual(at.body);
      expect(await jobTotal()).toBe(before + 1);
    },
  );

  it("50 references to one facility are accepted and kept once", async () => {
    const job = await createJob({ originFacilityRefs: Array(50).fill(facilities[1]) });
    expect(job.originFacilityRefs).toEqual([facilities[1]]);
  });
});

const TO_NOT_RETURNABLE = "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB";
const TO_RETURNABLE = "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB";
const REPLACE = "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB";

describe("POST /api/itemreturnjobs/{id}/actions", () => {
  it("without name: 400 naming it, the job unchanged", async () => {
    const job = await createJob();
    rejected(await act(job.id, { version: 1, lineItemIds: [job.returnableLineItems[0].id] }), "name");
    expect(await readJob(job.id)).toEqual(job);
  });

  describe.each([
    { name: TO_NOT_RETURNABLE, from: "returnableLineItems", to: "notReturnableLineItems" },
    { name: TO_RETURNABLE, from: "notReturnableLineItems", to: "returnableLineItems" },
  ])("$name", ({ name, from, to }) => {
    /** A job with `count` lines in `from` (and `into` lines in `to`). */
    const jobWith = (count: number, into = 0) =>
      createJob({ returnableLineItems: [], [from]: lines(count), [to]: lines(into, 500) });
    const idsOf = (job: any, list: string) => job[list].map((l: any) => l.id as string);

    it.each([
      { label: "without lineItemIds", extra: (_ids: string[]) => ({}) },
      { label: "lineItemIds: []", extra: (_ids: string[]) => ({ lineItemIds: [] }) },
      { label: "21 lineItemIds", extra: (ids: string[]) => ({ lineItemIds: ids.slice(0, 21) }) },
    ])("$label: 400 naming lineItemIds, the job unchanged", async ({ extra }) => {
      const job = await jobWith(21);
      rejected(await act(job.id, { name, version: 1, ...extra(idsOf(job, from)) }), "lineItemIds");
      expect(await readJob(job.id)).toEqual(job);
    });

    it("20 lineItemIds move those 20 lines", async () => {
      const job = await jobWith(21);
      const ids = idsOf(job, from);
      const res = await act(job.id, { name, version: 1, lineItemIds: ids.slice(0, 20) });
      expect(res.status, res.text).toBe(200);
      conformant("ItemReturnJob", res.body);
      expect(res.body.version).toBe(2);
      expect(idsOf(res.body, to)).toEqual(ids.slice(0, 20));
      expect(idsOf(res.body, from)).toEqual([ids[20]]);
      expect(await readJob(job.id)).toEqual(res.body);
    });

    it("into a list of 99 one line is accepted (100); into a list of 100 it is 400 and nothing moves", async () => {
      const job = await jobWith(2, 99);
      const [first, second] = idsOf(job, from);
      const at = await act(job.id, { name, version: 1, lineItemIds: [first] });
      expect(at.status, at.text).toBe(200);
      expect(at.body[to]).toHaveLength(100);
      const over = await act(job.id, { name, version: 2, lineItemIds: [second] });
      rejected(over, "lineItemIds");
      expect(over.body[0].description).toContain(`${to} would hold 101`);
      expect(await readJob(job.id)).toEqual(at.body);
    });

    it("409 on a stale version; nothing moves", async () => {
      const job = await jobWith(2);
      const started = await act(job.id, { name: "StartItemReturnJob", version: 1 });
      expect(started.status, started.text).toBe(200);
      const stale = await act(job.id, { name, version: 1, lineItemIds: [idsOf(job, from)[0]] });
      expect(stale.status, stale.text).toBe(409);
      expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
      expect(await readJob(job.id)).toEqual(started.body);
    });
  });

  describe(REPLACE, () => {
    it.each(["returnableLineItems", "notReturnableLineItems"])(
      "%s: 20 replace the list; 21 are 400 naming it and change nothing",
      async (field) => {
        const job = await createJob({ notReturnableLineItems: [line(3)] });
        rejected(await act(job.id, { name: REPLACE, version: 1, [field]: lines(21, 10) }), field);
        expect(await readJob(job.id)).toEqual(job);
        const res = await act(job.id, { name: REPLACE, version: 1, [field]: lines(20, 10) });
        expect(res.status, res.text).toBe(200);
        conformant("ItemReturnJob", res.body);
        expect(res.body.version).toBe(2);
        expect(res.body[field].map((l: any) => l.article.tenantArticleId)).toEqual(
          lines(20, 10).map((l) => l.article.tenantArticleId),
        );
        const untouched = field === "returnableLineItems" ? "notReturnableLineItems" : "returnableLineItems";
        expect(res.body[untouched]).toEqual(job[untouched]);
      },
    );

    it("409 on a stale version; nothing is replaced", async () => {
      const job = await createJob();
      const started = await act(job.id, { name: "StartItemReturnJob", version: 1 });
      expect(started.status, started.text).toBe(200);
      const stale = await act(job.id, { name: REPLACE, version: 1, returnableLineItems: [line(9)] });
      expect(stale.status, stale.text).toBe(409);
      expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
      expect(await readJob(job.id)).toEqual(started.body);
    });
  });
});

// --- return configuration ------------------------------------------------------------------------

const CONFIG = "/api/configurations/return";
const STATUS_VALUES = ["ACCEPTED", "REJECTED", "WAITING_FOR_INPUT"];
const localized = (key: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ [key]: { en_US: `Text ${i}` } }));
const decision = (extra: Record<string, unknown> = {}) => ({
  reasonLocalized: { en_US: "Like new" },
  ...extra,
});
const context = (values = ["ACCEPTED"]) => ({ type: "ITEM_RETURN_LINE_ITEM_STATUS", values });

describe("GET/PUT /api/configurations/return", () => {
  it("tenant B gets 404 after tenant A's PUT; B's own PUT is 201 and leaves A's as it was", async () => {
    const a = await tenantOf("rc-a");
    const b = await tenantOf("rc-b");
    const created = await a("PUT", CONFIG, {
      version: 0,
      active: true,
      allowTriggerRefund: true,
      availableReturnReasons: [{ reasonLocalized: { en_US: "Too small" } }],
    });
    expect(created.status, created.text).toBe(201);
    expect((await b("GET", CONFIG)).status).toBe(404);
    const theirs = await b("PUT", CONFIG, { version: 0, active: false, availableReturnReasons: [] });
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.body).toMatchObject({
      version: 1,
      active: false,
      allowTriggerRefund: false,
      availableReturnReasons: [],
    });
    expect((await a("GET", CONFIG)).body).toEqual(created.body);
    expect((await b("GET", CONFIG)).body).toEqual(theirs.body);
  });

  it.each([
    {
      field: "availableReturnReasons",
      max: 125,
      body: (n: number) => ({ availableReturnReasons: localized("reasonLocalized", n) }),
      // Every one gets its own identifier: 1-99, then A-Z.
      count: (c: any) => new Set(c.availableReturnReasons.map((r: any) => r.identifier)).size,
    },
    {
      field: "availableDecisionReasons",
      max: 100,
      body: (n: number) => ({ availableDecisionReasons: localized("reasonLocalized", n) }),
      count: (c: any) => c.availableDecisionReasons.length,
    },
    {
      field: "availableItemConditions",
      max: 100,
      body: (n: number) => ({ availableItemConditions: localized("conditionLocalized", n) }),
      count: (c: any) => c.availableItemConditions.length,
    },
    {
      field: "availableDecisionReasons/0/context",
      max: 10,
      body: (n: number) => ({ availableDecisionReasons: [decision({ context: Array(n).fill(context()) })] }),
      count: (c: any) => c.availableDecisionReasons[0].context.length,
    },
    {
      field: "availableDecisionReasons/0/context/0/values",
      max: 10,
      body: (n: number) => ({
        availableDecisionReasons: [
          decision({
            context: [context(Array.from({ length: n }, (_, i) => STATUS_VALUES[i % 3] as string))],
          }),
        ],
      }),
      count: (c: any) => c.availableDecisionReasons[0].context[0].values.length,
    },
  ])(
    "$field: $max accepted; one more is 400 naming it and stores nothing",
    async ({ field, max, body, count }) => {
      const tenant = await tenantOf("rc-limit");
      rejected(await tenant("PUT", CONFIG, { version: 0, active: true, ...body(max + 1) }), field);
      expect((await tenant("GET", CONFIG)).status).toBe(404);
      const at = await tenant("PUT", CONFIG, { version: 0, active: true, ...body(max) });
      expect(at.status, at.text).toBe(201);
      conformant("LocalizedReturnConfiguration", at.body);
      expect(count(at.body)).toBe(max);
      rejected(await tenant("PUT", CONFIG, { version: 1, active: true, ...body(max + 1) }), field);
      expect((await tenant("GET", CONFIG)).body).toEqual(at.body);
    },
  );

  it.each([
    {
      label: "a return reason without reasonLocalized",
      field: "reasonLocalized",
      body: { availableReturnReasons: [{ identifier: "A" }] },
    },
    {
      label: "a return reason with no locale",
      field: "availableReturnReasons/0/reasonLocalized",
      body: { availableReturnReasons: [{ reasonLocalized: {} }] },
    },
    {
      label: "a decision reason without reasonLocalized",
      field: "reasonLocalized",
      body: { availableDecisionReasons: [{ context: [context()] }] },
    },
    {
      label: "an item condition without conditionLocalized",
      field: "conditionLocalized",
      body: { availableItemConditions: [{}] },
    },
    {
      label: "an empty decision context",
      field: "availableDecisionReasons/0/context",
      body: { availableDecisionReasons: [decision({ context: [] })] },
    },
    {
      label: "a decision context without values",
      field: "values",
      body: { availableDecisionReasons: [decision({ context: [context([])] })] },
    },
  ])("$label: 400 naming $field; the configuration unchanged", async ({ field, body }) => {
    const tenant = await tenantOf("rc-bad");
    rejected(await tenant("PUT", CONFIG, { version: 0, active: true, ...body }), field);
    expect((await tenant("GET", CONFIG)).status).toBe(404);
    const created = await tenant("PUT", CONFIG, { version: 0, active: true });
    expect(created.status, created.text).toBe(201);
    rejected(await tenant("PUT", CONFIG, { version: 1, active: false, ...body }), field);
    expect((await tenant("GET", CONFIG)).body).toEqual(created.body);
  });
});

// --- lists ---------------------------------------------------------------------------------------

describe("list page sizes", () => {
  it.each([
    {
      path: "/api/itemreturnjobs",
      schema: "ItemReturnJobs",
      key: "itemReturnJobsWithSearchPaths",
      total: "total",
    },
    { path: "/api/itemreturns", schema: "ItemReturns", key: "itemReturns", total: "totalCount" },
  ])(
    "GET $path: size=500 is 200; size=501 and size=0 are 400 naming size",
    async ({ path, schema, key, total }) => {
      const page = await api("GET", `${path}?size=500`);
      expect(page.status, page.text).toBe(200);
      conformant(schema, page.body);
      expect(page.body[key]).toHaveLength(Math.min(page.body[total], 500));
      for (const size of [501, 0]) rejected(await api("GET", `${path}?size=${size}`), "size");
    },
  );
});
