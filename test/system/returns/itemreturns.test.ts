/**
 * Item returns inside their jobs through the gateway: adding one (the whole job back, quantities
 * recounted), reads, actions with their transitions, line item PATCHes (status, decision reason,
 * refund), versions, limits at and over the edge, REFUND_TRIGGERED exactly once (also when the last
 * two lines are closed by concurrent requests), tenancy and conformance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "rita.returns" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Returns desk", address: facilityAddress })).body
    .id;
});
afterAll(() => sys?.close());

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};
const createJob = async (lines = 2) => {
  const res = await api("POST", "/api/itemreturnjobs", {
    originFacilityRefs: [facilityId],
    status: "OPEN",
    consumerAddresses: [facilityAddress],
    returnableLineItems: Array.from({ length: lines }, (_, i) => ({
      article: { tenantArticleId: `A-${i}`, title: `Article ${i}` },
      delivered: 2,
    })),
    notReturnableLineItems: [{ article: { tenantArticleId: "N-1", title: "Final sale" }, delivered: 1 }],
  });
  expect(res.status, res.text).toBe(200);
  return res.body as Record<string, any>;
};
const returned = (ref: string, extra: Record<string, unknown> = {}) => ({
  itemReturnJobLineItemRef: ref,
  status: "OPEN",
  ...extra,
});
const addReturn = (job: any, version: number, extra: Record<string, unknown> = {}, as = api) =>
  as("POST", `/api/itemreturnjobs/${job.id}/itemreturns`, {
    itemReturnJobVersion: version,
    itemReturnForCreation: {
      status: "OPEN",
      returnFacilityRef: facilityId,
      returnedLineItems: job.returnableLineItems.map((l: any) => returned(l.id)),
      ...extra,
    },
  });
const path = (job: any, ir: any) => `/api/itemreturnjobs/${job.id}/itemreturns/${ir.id}`;

describe("adding item returns", () => {
  it("answers the whole job: the item return with line ids, returned counted, version moved", async () => {
    const job = await createJob();
    const res = await addReturn(job, 1, {
      returnedNotReturnableLineItems: [
        returned(job.notReturnableLineItems[0].id, { itemConditionComment: "torn" }),
      ],
      scannableCodes: ["IR-1"],
    });
    expect(res.status, res.text).toBe(200);
    conformant("ItemReturnJob", res.body);
    expect(res.body.version).toBe(2);
    const ir = res.body.itemReturns[0];
    conformant("ItemReturn", ir);
    expect(ir).toMatchObject({
      id: expect.any(String),
      status: "OPEN",
      returnFacilityRef: facilityId,
      scannableCodes: ["IR-1"],
    });
    expect(ir.returnedLineItems[0]).toMatchObject({
      id: expect.any(String),
      itemReturnJobLineItemRefs: [job.returnableLineItems[0].id],
      tenantArticleId: "A-0",
      status: "OPEN",
    });
    expect(res.body.returnableLineItems[0]).toMatchObject({ delivered: 2, returned: 1, returnable: 1 });
    const list = await api("GET", `/api/itemreturnjobs/${job.id}/itemreturns`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([ir]);
    expect((await api("GET", path(job, ir))).body).toEqual(ir);
    expect((await api("GET", `/api/itemreturnjobs/${job.id}/itemreturns/${UNKNOWN}`)).status).toBe(404);
    expect((await api("GET", `/api/itemreturnjobs/${UNKNOWN}/itemreturns`)).status).toBe(404);
  });

  it("409 on a stale job version; 400 for unknown lines or facility and per limit (at the limit accepted)", async () => {
    const job = await createJob();
    const stale = await addReturn(job, 5);
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 5, version: 1 });
    const ref = job.returnableLineItems[0].id;
    const reason = { reasonLocalized: { en_US: "Too small" } };
    const cases: [string, Record<string, unknown>][] = [
      ["itemReturnJobLineItemRef", { returnedLineItems: [returned(UNKNOWN)] }],
      ["itemReturnJobLineItemRef", { returnedLineItems: [returned(job.notReturnableLineItems[0].id)] }],
      ["returnFacilityRef", { returnFacilityRef: UNKNOWN }],
      ["reasons", { returnedLineItems: [returned(ref, { reasons: Array(21).fill(reason) })] }],
      ["scannedCodes", { returnedLineItems: [returned(ref, { scannedCodes: Array(51).fill("c") })] }],
      ["itemConditionComment", { returnedLineItems: [returned(ref, { itemConditionComment: "" })] }],
      ["returnedLineItems", { returnedLineItems: Array(101).fill(returned(ref)) }],
      ["scannableCodes", { scannableCodes: Array(51).fill("c") }],
      ["status", { status: "LOST" }],
    ];
    for (const [field, extra] of cases) {
      const res = await addReturn(job, 1, extra);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), `${field}: ${res.text}`).toContain(field);
    }
    const recordable = { keyLocalized: { en_US: "Serial" }, recordingRule: "OPTIONAL" };
    const atLimit = await addReturn(job, 1, {
      returnedLineItems: [
        ...Array(99).fill(returned(ref)),
        returned(ref, {
          reasons: Array(20).fill(reason),
          scannedCodes: Array(50).fill("c"),
          recordableAttributes: Array(50).fill(recordable),
        }),
      ],
      scannableCodes: Array(50).fill("c"),
    });
    expect(atLimit.status, atLimit.text).toBe(200);
    expect(atLimit.body.itemReturns[0].returnedLineItems).toHaveLength(100);
    const overRecordable = await addReturn(atLimit.body, 2, {
      returnedLineItems: [returned(ref, { recordableAttributes: Array(51).fill(recordable) })],
    });
    expect(overRecordable.status).toBe(400);
  });
});

describe("item return actions and line items", () => {
  it("actions follow the item return table on the job version; 422 names what is possible", async () => {
    const job = (await addReturn(await createJob(), 1)).body;
    const ir = job.itemReturns[0];
    const started = await api("POST", `${path(job, ir)}/actions`, {
      name: "StartItemReturn",
      itemReturnJobVersion: 2,
    });
    expect(started.status, started.text).toBe(200);
    expect(started.body.itemReturns[0].status).toBe("IN_PROGRESS");
    expect(started.body.version).toBe(3);
    const announce = await api("POST", `${path(job, ir)}/actions`, {
      name: "AnnounceItemReturn",
      itemReturnJobVersion: 3,
    });
    expect(announce.status).toBe(422);
    expect(announce.body[0].description).toContain("PauseItemReturn");
    const stale = await api("POST", `${path(job, ir)}/actions`, {
      name: "PauseItemReturn",
      itemReturnJobVersion: 2,
    });
    expect(stale.status).toBe(409);
    const unknown = await api("POST", `/api/itemreturnjobs/${job.id}/itemreturns/${UNKNOWN}/actions`, {
      name: "PauseItemReturn",
      itemReturnJobVersion: 3,
    });
    expect(unknown.status).toBe(404);
  });

  it("PATCH a line: status (closed is final), decision reason, refund (price or percent)", async () => {
    const job = (await addReturn(await createJob(), 1)).body;
    const ir = job.itemReturns[0];
    const [l0] = ir.returnedLineItems;
    const lineUrl = `${path(job, ir)}/returnedlineitems/${l0.id}`;
    const waiting = await api("PATCH", lineUrl, { itemReturnJobVersion: 2, status: "WAITING_FOR_INPUT" });
    expect(waiting.status, waiting.text).toBe(200);
    const accepted = await api("PATCH", lineUrl, {
      itemReturnJobVersion: 3,
      status: "ACCEPTED",
      decisionReason: { reasonLocalized: { en_US: "As new" } },
      refund: { status: "OPEN", percent: 100 },
    });
    expect(accepted.status, accepted.text).toBe(200);
    conformant("ItemReturnJob", accepted.body);
    expect(accepted.body.itemReturns[0].returnedLineItems[0]).toMatchObject({
      status: "ACCEPTED",
      decisionReason: { reasonLocalized: { en_US: "As new" }, reason: "As new" },
      refund: { status: "OPEN", percent: 100 },
    });
    const reopen = await api("PATCH", lineUrl, { itemReturnJobVersion: 4, status: "OPEN" });
    expect(reopen.status).toBe(422);
    for (const refund of [
      { status: "OPEN" },
      { status: "OPEN", percent: 10, price: { value: 1, currency: "EUR" } },
      { status: "OPEN", percent: 101 },
      { status: "DONE", percent: 1 },
      { status: "OPEN", price: { value: 1, currency: "EUR", extra: 1 } },
    ]) {
      const res = await api("PATCH", lineUrl, { itemReturnJobVersion: 4, refund });
      expect(res.status, JSON.stringify(refund)).toBe(400);
    }
    const missingVersion = await api("PATCH", lineUrl, { status: "ACCEPTED" });
    expect(missingVersion.status).toBe(400);
    expect(
      (await api("PATCH", `${path(job, ir)}/returnedlineitems/${UNKNOWN}`, { itemReturnJobVersion: 4 }))
        .status,
    ).toBe(404);
  });
});

describe("replacing line item lists and the deprecated DELETE", () => {
  it("PUT replaces a list (1-100, new ids) on the job version; DELETE removes the item return", async () => {
    const job = (await addReturn(await createJob(), 1)).body;
    const ir = job.itemReturns[0];
    const ref = job.returnableLineItems[1].id;
    const put = await api("PUT", `${path(job, ir)}/returnedlineitems`, {
      itemReturnJobVersion: 2,
      returnedLineItems: [returned(ref, { status: "IN_PROGRESS" })],
    });
    expect(put.status, put.text).toBe(200);
    conformant("ItemReturnJob", put.body);
    const lines = put.body.itemReturns[0].returnedLineItems;
    expect(lines).toEqual([
      expect.objectContaining({ itemReturnJobLineItemRefs: [ref], status: "IN_PROGRESS" }),
    ]);
    expect(lines[0].id).not.toBe(ir.returnedLineItems[1].id);
    expect(put.body.returnableLineItems.map((l: any) => l.returned)).toEqual([0, 1]);
    const notReturnable = await api("PUT", `${path(job, ir)}/returnednotreturnablelineitems`, {
      itemReturnJobVersion: 3,
      returnedNotReturnableLineItems: [returned(job.notReturnableLineItems[0].id)],
    });
    expect(notReturnable.status, notReturnable.text).toBe(200);
    for (const [body, status] of [
      [{ itemReturnJobVersion: 4, returnedLineItems: [] }, 400],
      [{ itemReturnJobVersion: 4, returnedLineItems: Array(101).fill(returned(ref)) }, 400],
      [{ returnedLineItems: [returned(ref)] }, 400],
      [{ itemReturnJobVersion: 3, returnedLineItems: [returned(ref)] }, 409],
    ] as const) {
      expect(
        (await api("PUT", `${path(job, ir)}/returnedlineitems`, body)).status,
        JSON.stringify(body).slice(0, 80),
      ).toBe(status);
    }
    expect((await api("DELETE", `${path(job, ir)}?itemReturnJobVersion=3`)).status).toBe(409);
    expect((await api("DELETE", path(job, ir))).status).toBe(400);
    const del = await api("DELETE", `${path(job, ir)}?itemReturnJobVersion=4`);
    expect(del.status, del.text).toBe(200);
    expect(del.headers.get("deprecation")).toBeTruthy();
    expect(del.body).toMatchObject({ version: 5, itemReturns: [] });
    expect(del.body.returnableLineItems.map((l: any) => l.returned)).toEqual([0, 0]);
    expect((await api("DELETE", `${path(job, ir)}?itemReturnJobVersion=5`)).status).toBe(404);
  });
});

describe("REFUND_TRIGGERED", () => {
  const refundEvents = async (jobId: string, atLeast: number) => {
    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", { query: { entityRef: { eq: jobId } }, size: 100 });
      return res.body.audits?.length >= atLeast ? (res.body.audits as any[]) : undefined;
    });
    return audits.filter((a) => a.operation.name === "REFUND_TRIGGERED").length;
  };

  it("is emitted once when every line is decided, never while one is open", async () => {
    const job = (await addReturn(await createJob(), 1)).body;
    const ir = job.itemReturns[0];
    const [a, b] = ir.returnedLineItems;
    const first = await api("PATCH", `${path(job, ir)}/returnedlineitems/${a.id}`, {
      itemReturnJobVersion: 2,
      status: "ACCEPTED",
    });
    expect(first.status).toBe(200);
    // Job created, item return added, one line accepted: 3 events, no refund yet.
    expect(await refundEvents(job.id, 3)).toBe(0);
    const last = await api("PATCH", `${path(job, ir)}/returnedlineitems/${b.id}`, {
      itemReturnJobVersion: 3,
      status: "REJECTED",
    });
    expect(last.status).toBe(200);
    expect(await refundEvents(job.id, 5)).toBe(1);
    // Deciding again (a decision reason on a closed line) does not trigger it twice.
    await api("PATCH", `${path(job, ir)}/returnedlineitems/${b.id}`, {
      itemReturnJobVersion: 4,
      decisionReason: { reasonLocalized: { en_US: "Worn" } },
    });
    expect(await refundEvents(job.id, 6)).toBe(1);
  });

  it("exactly once when the last two lines are closed by concurrent requests (20 runs)", async () => {
    for (let run = 0; run < 20; run++) {
      const job = (await addReturn(await createJob(), 1)).body;
      const ir = job.itemReturns[0];
      // Both name version 2: one wins, the other is a 409 and retries on the new version, as a
      // client does; whichever closes the last line triggers the refund.
      const close = async (line: any, status: string) => {
        for (let version = 2; ; version++) {
          const res = await api("PATCH", `${path(job, ir)}/returnedlineitems/${line.id}`, {
            itemReturnJobVersion: version,
            status,
          });
          if (res.status === 200) return;
          expect(res.status, res.text).toBe(409);
        }
      };
      await Promise.all([
        close(ir.returnedLineItems[0], "ACCEPTED"),
        close(ir.returnedLineItems[1], "CANCELED"),
      ]);
      expect(await refundEvents(job.id, 5), `run ${run}`).toBe(1);
    }
  }, 120_000);
});

describe("GET /api/itemreturns", () => {
  it("finds item returns across jobs by status, line status, facility and search term; pages; counts", async () => {
    const tenant = sys.as(await sys.token(`ir-${Date.now()}`));
    const f = (await tenant("POST", "/api/facilities", { name: "F", address: facilityAddress })).body.id;
    const g = (await tenant("POST", "/api/facilities", { name: "G", address: facilityAddress })).body.id;
    const job = async (title: string) =>
      (
        await tenant("POST", "/api/itemreturnjobs", {
          originFacilityRefs: [f],
          status: "OPEN",
          consumerAddresses: [{ ...facilityAddress, lastName: "Curie" }],
          returnableLineItems: [{ article: { tenantArticleId: "SKU-9", title }, delivered: 1 }],
          tenantOrderId: `ORD-${title}`,
        })
      ).body;
    const add = async (j: any, facility: string, status: string, lineStatus: string) =>
      (
        await tenant("POST", `/api/itemreturnjobs/${j.id}/itemreturns`, {
          itemReturnJobVersion: j.version,
          itemReturnForCreation: {
            status,
            returnFacilityRef: facility,
            returnedLineItems: [
              { itemReturnJobLineItemRef: j.returnableLineItems[0].id, status: lineStatus },
            ],
          },
        })
      ).body;
    const j1 = await add(await job("Kettle"), f, "OPEN", "OPEN");
    const j2 = await add(await job("Toaster"), g, "IN_PROGRESS", "ACCEPTED");
    const [a, b] = [j1.itemReturns[0], j2.itemReturns[0]];
    const ids = async (query: string) => {
      const res = await tenant("GET", `/api/itemreturns${query}`);
      expect(res.status, res.text).toBe(200);
      conformant("ItemReturns", res.body);
      return { ids: res.body.itemReturns.map((r: any) => r.id), total: res.body.totalCount };
    };
    expect(await ids("")).toEqual({ ids: [a.id, b.id], total: 2 });
    const all = (await tenant("GET", "/api/itemreturns")).body.itemReturns;
    expect(all[0]).toEqual({ ...a, searchPaths: [`itemReturnJobs/${j1.id}`] });
    expect((await ids("?size=1")).ids).toEqual([a.id]);
    expect((await ids(`?startAfterId=${a.id}`)).ids).toEqual([b.id]);
    expect((await ids("?itemReturnStatus=IN_PROGRESS")).ids).toEqual([b.id]);
    expect((await ids("?itemReturnLineItemStatus=ACCEPTED&itemReturnLineItemStatus=REJECTED")).ids).toEqual([
      b.id,
    ]);
    expect((await ids(`?facilityRefs=${g}`)).ids).toEqual([b.id]);
    expect((await ids("?searchTerm=kettle")).ids).toEqual([a.id]);
    expect((await ids("?searchTerm=curie")).total).toBe(2);
    expect((await ids("?anonymized=true")).total).toBe(0);
    expect((await tenant("GET", "/api/itemreturns?itemReturnStatus=LOST")).status).toBe(400);
    expect(
      (await other("GET", "/api/itemreturns?size=500")).body.itemReturns.map((r: any) => r.id),
    ).not.toContain(a.id);
  });
});

describe("return configuration", () => {
  it("404 until the first PUT (201), then versioned updates (200, 409 when stale); identifiers assigned", async () => {
    const tenant = sys.as(await sys.token(`rc-${Date.now()}`));
    expect((await tenant("GET", "/api/configurations/return")).status).toBe(404);
    const body = {
      version: 0,
      active: true,
      allowTriggerRefund: true,
      returnTypeConfiguration: { type: "ITEM_RETURN" },
      availableReturnReasons: [
        { reasonLocalized: { en_US: "Too small", de_DE: "Zu klein" } },
        { reasonLocalized: { en_US: "Damaged" }, identifier: "1" },
        { reasonLocalized: { en_US: "Other" } },
      ],
      availableDecisionReasons: [
        {
          reasonLocalized: { en_US: "Like new" },
          context: [{ type: "ITEM_RETURN_LINE_ITEM_STATUS", values: ["ACCEPTED"] }],
        },
      ],
      availableItemConditions: [{ conditionLocalized: { en_US: "Used" } }],
    };
    const created = await tenant("PUT", "/api/configurations/return", body);
    expect(created.status, created.text).toBe(201);
    conformant("LocalizedReturnConfiguration", created.body);
    expect(created.body).toMatchObject({ version: 1, active: true, allowTriggerRefund: true });
    expect(created.body.availableReturnReasons.map((r: any) => [r.identifier, r.reason])).toEqual([
      ["2", "Too small"],
      ["1", "Damaged"],
      ["3", "Other"],
    ]);
    expect(created.body.availableItemConditions[0].condition).toBe("Used");
    expect((await tenant("GET", "/api/configurations/return")).body).toEqual(created.body);
    const stale = await tenant("PUT", "/api/configurations/return", { ...body, version: 0 });
    expect(stale.status).toBe(409);
    const updated = await tenant("PUT", "/api/configurations/return", { version: 1, active: false });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({
      version: 2,
      active: false,
      allowTriggerRefund: false,
      availableReturnReasons: [],
    });
    for (const bad of [
      { version: 2 },
      { active: true },
      {
        version: 2,
        active: true,
        availableReturnReasons: [{ reasonLocalized: { en: "x" }, identifier: "100" }],
      },
      {
        version: 2,
        active: true,
        availableReturnReasons: [
          { reasonLocalized: { en: "x" }, identifier: "A" },
          { reasonLocalized: { en: "y" }, identifier: "A" },
        ],
      },
      {
        version: 2,
        active: true,
        availableDecisionReasons: [{ reasonLocalized: { en: "x" }, context: [{ values: ["OPEN"] }] }],
      },
    ]) {
      expect((await tenant("PUT", "/api/configurations/return", bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const clerk = sys.as(await sys.token(`rc-${Date.now()}`, { roles: ["RETURNS_CLERK"] }));
    expect((await clerk("GET", "/api/configurations/return")).status).toBe(403);
  });
});

describe("tenancy", () => {
  it("tenant B reads and changes nothing of tenant A's item returns", async () => {
    const job = (await addReturn(await createJob(), 1)).body;
    const ir = job.itemReturns[0];
    expect((await other("GET", path(job, ir))).status).toBe(404);
    expect((await other("GET", `/api/itemreturnjobs/${job.id}/itemreturns`)).status).toBe(404);
    expect((await addReturn(job, 2, {}, other)).status).toBe(404);
    expect(
      (await other("POST", `${path(job, ir)}/actions`, { name: "StartItemReturn", itemReturnJobVersion: 2 }))
        .status,
    ).toBe(404);
    expect(
      (
        await other("PATCH", `${path(job, ir)}/returnedlineitems/${ir.returnedLineItems[0].id}`, {
          itemReturnJobVersion: 2,
          status: "ACCEPTED",
        })
      ).status,
    ).toBe(404);
    expect((await api("GET", `/api/itemreturnjobs/${job.id}`)).body.version).toBe(2);
  });
});
