/**
 * Item return jobs through the gateway: creation (200, the reference's answer; facilities checked),
 * reads, the list's filters and paging, every job action with its transitions, versions, limits,
 * tenancy, audit and conformance with the reference's schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let otherFacilityId: string;

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "rita.returns" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Returns desk", address: facilityAddress })).body
    .id;
  otherFacilityId = (await other("POST", "/api/facilities", { name: "Globex", address: facilityAddress }))
    .body.id;
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};
const line = (n: number, extra: Record<string, unknown> = {}) => ({
  article: { tenantArticleId: `A-${n}`, title: `Article ${n}` },
  delivered: 2,
  ...extra,
});
const consumer = {
  firstName: "Ada",
  lastName: "Lovelace",
  street: "Hauptstr.",
  houseNumber: "1",
  postalCode: "40764",
  city: "Langenfeld",
  country: "DE",
  email: "ada@example.com",
};
const jobBody = (extra: Record<string, unknown> = {}) => ({
  originFacilityRefs: [facilityId],
  status: "OPEN",
  consumerAddresses: [consumer],
  returnableLineItems: [line(1), line(2)],
  tenantOrderId: "ORDER-1",
  ...extra,
});
const createJob = async (extra: Record<string, unknown> = {}, as = api) => {
  const res = await as("POST", "/api/itemreturnjobs", jobBody(extra));
  expect(res.status, res.text).toBe(200);
  conformant("ItemReturnJob", res.body);
  return res.body as Record<string, any>;
};
const act = (id: string, body: Record<string, unknown>, as = api) =>
  as("POST", `/api/itemreturnjobs/${id}/actions`, body);

describe("creating and reading item return jobs", () => {
  it("creates with 200 and the job: ids, shortId, processRef, quantities, status as given", async () => {
    const job = await createJob({
      notReturnableLineItems: [
        line(3, { recordableAttributes: [{ keyLocalized: { en_US: "Serial" }, recordingRule: "OPTIONAL" }] }),
      ],
      scannableCodes: ["RET-1"],
    });
    expect(job).toMatchObject({
      version: 1,
      status: "OPEN",
      originFacilityRefs: [facilityId],
      processRef: expect.any(String),
      shortId: expect.stringMatching(/^[2-9A-Z]{6}$/),
      itemReturns: [],
      scannableCodes: ["RET-1"],
      tenantOrderId: "ORDER-1",
    });
    expect(job.returnableLineItems[0]).toMatchObject({
      id: expect.any(String),
      delivered: 2,
      returnable: 2,
      returned: 0,
    });
    expect(job.notReturnableLineItems[0]).toMatchObject({ returnable: 0, returned: 0 });
    expect(job.notReturnableLineItems[0].recordableAttributes[0].id).toEqual(expect.any(String));
    const read = await api("GET", `/api/itemreturnjobs/${job.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(job);
    expect(await createJob({ status: "IN_PROGRESS", shortId: "MINE-1" })).toMatchObject({
      status: "IN_PROGRESS",
      shortId: "MINE-1",
    });
  });

  it("400 for unknown or foreign facilities, missing fields and every limit (at the limit accepted)", async () => {
    const { status: _s, ...noStatus } = jobBody();
    const { consumerAddresses: _c, ...noAddresses } = jobBody();
    const { returnableLineItems: _r, ...noLines } = jobBody();
    const cases: [string, Record<string, unknown>][] = [
      ["originFacilityRefs", jobBody({ originFacilityRefs: [UNKNOWN] })],
      ["originFacilityRefs", jobBody({ originFacilityRefs: [otherFacilityId] })],
      ["status", noStatus],
      ["status", jobBody({ status: "DONE" })],
      ["consumerAddresses", noAddresses],
      ["consumerAddresses", jobBody({ consumerAddresses: [] })],
      ["consumerAddresses", jobBody({ consumerAddresses: Array(6).fill(consumer) })],
      ["returnableLineItems", noLines],
      [
        "returnableLineItems",
        jobBody({ returnableLineItems: Array.from({ length: 101 }, (_, i) => line(i)) }),
      ],
      ["delivered", jobBody({ returnableLineItems: [line(1, { delivered: 0 })] })],
      ["scannableCodes", jobBody({ scannableCodes: Array.from({ length: 51 }, (_, i) => `C${i}`) })],
      ["originFacilityRefs", jobBody({ originFacilityRefs: Array(51).fill(facilityId) })],
      ["title", jobBody({ returnableLineItems: [{ article: { tenantArticleId: "A" }, delivered: 1 }] })],
    ];
    for (const [field, body] of cases) {
      const res = await api("POST", "/api/itemreturnjobs", body);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), `${field}: ${res.text}`).toContain(field);
    }
    const atLimit = await createJob({
      consumerAddresses: Array(5).fill(consumer),
      returnableLineItems: Array.from({ length: 100 }, (_, i) => line(i)),
      notReturnableLineItems: Array.from({ length: 100 }, (_, i) => line(i)),
      scannableCodes: Array.from({ length: 50 }, (_, i) => `C${i}`),
    });
    expect(atLimit.returnableLineItems).toHaveLength(100);
  });

  it("404 for an unknown or malformed id", async () => {
    for (const id of [UNKNOWN, "nope"]) {
      expect((await api("GET", `/api/itemreturnjobs/${id}`)).status).toBe(404);
      expect((await act(id, { name: "StartItemReturnJob", version: 1 })).status).toBe(404);
    }
  });
});

describe("listing item return jobs", () => {
  it("filters by facility, status, scannable code, search term; pages by id with total", async () => {
    const tenant = sys.as(await sys.token(`irj-${Date.now()}`));
    const f = (await tenant("POST", "/api/facilities", { name: "F", address: facilityAddress })).body.id;
    const g = (await tenant("POST", "/api/facilities", { name: "G", address: facilityAddress })).body.id;
    const make = async (extra: Record<string, unknown>) => {
      const res = await tenant("POST", "/api/itemreturnjobs", {
        ...jobBody(),
        originFacilityRefs: [f],
        ...extra,
      });
      expect(res.status, res.text).toBe(200);
      return res.body.id as string;
    };
    const a = await make({ scannableCodes: ["CODE-A"], tenantOrderId: "ORD-ALPHA" });
    const b = await make({ originFacilityRefs: [g], status: "IN_PROGRESS" });
    const c = await make({ consumerAddresses: [{ ...consumer, lastName: "Hopper" }] });
    const ids = async (query: string) => {
      const res = await tenant("GET", `/api/itemreturnjobs${query}`);
      expect(res.status, res.text).toBe(200);
      conformant("ItemReturnJobs", res.body);
      return { ids: res.body.itemReturnJobsWithSearchPaths.map((j: any) => j.id), total: res.body.total };
    };
    expect(await ids("")).toEqual({ ids: [a, b, c], total: 3 });
    expect(await ids("?size=2")).toEqual({ ids: [a, b], total: 3 });
    expect((await ids(`?size=2&startAfterId=${b}`)).ids).toEqual([c]);
    expect((await ids(`?facilityId=${g}`)).ids).toEqual([b]);
    expect((await ids("?facilityId=")).total).toBe(3);
    expect((await ids("?itemReturnJobStatus=IN_PROGRESS")).ids).toEqual([b]);
    expect((await ids("?itemReturnJobStatus=IN_PROGRESS&itemReturnJobStatus=OPEN")).ids).toEqual([a, b, c]);
    expect((await ids("?itemReturnJobScannableCodes=CODE-A")).ids).toEqual([a]);
    expect((await ids("?searchTerm=alpha")).ids).toEqual([a]);
    expect((await ids("?searchTerm=hopper")).ids).toEqual([c]);
    expect((await ids("?anonymized=false")).total).toBe(3);
    expect((await ids("?anonymized=true")).total).toBe(0);
    expect((await tenant("GET", "/api/itemreturnjobs?itemReturnJobStatus=DONE")).status).toBe(400);
    expect((await tenant("GET", "/api/itemreturnjobs?startAfterId=x")).status).toBe(400);
  });

  it("filters by tenantOrderId (ours, one declaration): REST and GraphQL alike, exact", async () => {
    const tenant = sys.as(await sys.token(`irj-order-${Date.now()}`));
    const f = (await tenant("POST", "/api/facilities", { name: "F", address: facilityAddress })).body.id;
    const make = async (tenantOrderId: string) => {
      const res = await tenant("POST", "/api/itemreturnjobs", {
        ...jobBody(),
        originFacilityRefs: [f],
        tenantOrderId,
      });
      expect(res.status, res.text).toBe(200);
      return res.body.id as string;
    };
    const a = await make("ORD-1");
    const b = await make("ORD-10");
    await make("ord-1");
    const rest = await tenant("GET", "/api/itemreturnjobs?tenantOrderId=ORD-1");
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.itemReturnJobsWithSearchPaths.map((j: any) => j.id)).toEqual([a]);
    expect(rest.body.total).toBe(1);
    const byOrder = (await tenant("GET", "/api/itemreturnjobs?tenantOrderId=ORD-10&itemReturnJobStatus=OPEN"))
      .body;
    expect(byOrder.itemReturnJobsWithSearchPaths.map((j: any) => j.id)).toEqual([b]);
    const gql = await tenant("POST", "/graphql", {
      query: `{ itemReturnJobs(first: 10, tenantOrderId: "ORD-1") { totalCount edges { node { id tenantOrderId } } } }`,
    });
    expect(gql.status, gql.text).toBe(200);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.itemReturnJobs).toEqual({
      totalCount: 1,
      edges: [{ node: { id: a, tenantOrderId: "ORD-1" } }],
    });
    const tooLong = await tenant("GET", `/api/itemreturnjobs?tenantOrderId=${"x".repeat(257)}`);
    expect(tooLong.status).toBe(400);
    const gqlTooLong = await tenant("POST", "/graphql", {
      query: `{ itemReturnJobs(first: 10, tenantOrderId: "${"x".repeat(257)}") { totalCount } }`,
    });
    expect(gqlTooLong.body.errors?.[0]?.extensions?.code).toBeDefined();
    expect(JSON.stringify(gqlTooLong.body.errors)).toMatch(/tenantOrderId/);
  });
});

describe("job actions", () => {
  it("Start, Finish, Restart move the status on the current version; 422 names what is possible", async () => {
    const job = await createJob();
    const started = await act(job.id, { name: "StartItemReturnJob", version: 1 });
    expect(started.status, started.text).toBe(200);
    conformant("ItemReturnJob", started.body);
    expect(started.body).toMatchObject({ status: "IN_PROGRESS", version: 2 });
    const again = await act(job.id, { name: "StartItemReturnJob", version: 2 });
    expect(again.status).toBe(422);
    expect(again.body[0].description).toContain("FinishItemReturnJob");
    const finished = await act(job.id, { name: "FinishItemReturnJob", version: 2 });
    expect(finished.body).toMatchObject({ status: "FINISHED", version: 3 });
    const restarted = await act(job.id, { name: "RestartItemReturnJob", version: 3 });
    expect(restarted.body).toMatchObject({ status: "IN_PROGRESS", version: 4 });
    const canceled = await createJob({ status: "CANCELED" });
    const none = await act(canceled.id, { name: "FinishItemReturnJob", version: 1 });
    expect(none.status).toBe(422);
    expect(none.body[0].description).toContain("CANCELED is final");
  });

  it("409 on a stale version, 400 without one or for an unknown action", async () => {
    const job = await createJob();
    const stale = await act(job.id, { name: "StartItemReturnJob", version: 7 });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 7, version: 1 });
    expect((await act(job.id, { name: "StartItemReturnJob" })).status).toBe(400);
    expect((await act(job.id, { name: "CancelItemReturnJob", version: 1 })).status).toBe(400);
    expect((await api("GET", `/api/itemreturnjobs/${job.id}`)).body.version).toBe(1);
  });

  it("moves line items between returnable and not returnable, and replaces them", async () => {
    const job = await createJob();
    const [l1, l2] = job.returnableLineItems;
    const moved = await act(job.id, {
      name: "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB",
      version: 1,
      lineItemIds: [l1.id],
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.returnableLineItems.map((l: any) => l.id)).toEqual([l2.id]);
    expect(moved.body.notReturnableLineItems).toEqual([{ ...l1, returnable: 0 }]);
    const back = await act(job.id, {
      name: "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB",
      version: 2,
      lineItemIds: [l1.id],
    });
    expect(back.body.returnableLineItems.map((l: any) => l.id)).toEqual([l2.id, l1.id]);
    expect(back.body.returnableLineItems[1].returnable).toBe(2);
    const unknown = await act(job.id, {
      name: "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB",
      version: 3,
      lineItemIds: [l1.id],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("lineItemIds");
    const replaced = await act(job.id, {
      name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB",
      version: 3,
      returnableLineItems: [line(9)],
    });
    expect(replaced.status, replaced.text).toBe(200);
    conformant("ItemReturnJob", replaced.body);
    expect(replaced.body.returnableLineItems).toEqual([
      expect.objectContaining({ article: line(9).article, returnable: 2 }),
    ]);
    expect(replaced.body.notReturnableLineItems).toEqual(back.body.notReturnableLineItems);
    const tooMany = await act(job.id, {
      name: "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB",
      version: 4,
      returnableLineItems: Array.from({ length: 21 }, (_, i) => line(i)),
    });
    expect(tooMany.status).toBe(400);
  });
});

describe("tenancy and audit", () => {
  it("tenant B reads, lists and changes nothing of tenant A's", async () => {
    const job = await createJob();
    expect((await other("GET", `/api/itemreturnjobs/${job.id}`)).status).toBe(404);
    expect((await act(job.id, { name: "StartItemReturnJob", version: 1 }, other)).status).toBe(404);
    const theirs = await other("GET", "/api/itemreturnjobs?size=500");
    expect(theirs.body.itemReturnJobsWithSearchPaths.map((j: any) => j.id)).not.toContain(job.id);
    expect((await api("GET", `/api/itemreturnjobs/${job.id}`)).body.version).toBe(1);
    const clerk = sys.as(await sys.token("acme", { roles: ["RETURNS_CLERK"] }));
    expect((await clerk("GET", `/api/itemreturnjobs/${job.id}`)).status).toBe(200);
    const picker = sys.as(await sys.token("acme", { roles: ["PICKER"] }));
    expect((await picker("GET", `/api/itemreturnjobs/${job.id}`)).status).toBe(403);
  });

  it("creation and actions reach the audit log", async () => {
    const job = await createJob();
    await act(job.id, { name: "StartItemReturnJob", version: 1 });
    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityRef: { eq: job.id } },
        sort: [{ created: "ASC" }],
      });
      return res.body.audits?.length >= 2 ? res.body.audits : undefined;
    });
    expect(audits.map((a: any) => [a.operation.name, a.entityType, a.entityVersion])).toEqual([
      ["ITEM_RETURN_JOB_CREATED", "ITEM_RETURN_JOB", 1],
      ["ITEM_RETURN_JOB_STARTED", "ITEM_RETURN_JOB", 2],
    ]);
  });
});
