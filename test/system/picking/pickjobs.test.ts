/**
 * Pick jobs through the gateway: creation (facility checked with the catalog), every action with its
 * happy path and an invalid transition, the deprecated PATCH, versions, tolerances, documents,
 * substitutes, the job's load units, concurrency, tenancy, events in the
 * audit log and conformance with the reference's PickJob schema.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let otherTenantFacilityId: string;

const jobBody = (overrides: Record<string, unknown> = {}) => pickJobBody(facilityId, overrides);

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "ada.lovelace" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Store 1", address: facilityAddress })).body.id;
  otherTenantFacilityId = (
    await other("POST", "/api/facilities", { name: "Globex 1", address: facilityAddress })
  ).body.id;
});
afterAll(() => sys?.close());

const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await api("POST", "/api/pickjobs", jobBody(overrides));
  expect(res.status, res.text).toBe(201);
  expectConformant("PickJob", res.body);
  return res.body;
};
const act = (id: string, body: Record<string, unknown>) => api("POST", `/api/pickjobs/${id}/actions`, body);
const ok = async (id: string, body: Record<string, unknown>) => {
  const res = await act(id, body);
  expect(res.status, res.text).toBe(200);
  expectConformant("PickJob", res.body);
  return res.body;
};
const expectConformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};

describe("pick job creation", () => {
  it("creates a real-looking job: generated fields, defaults, Location, reference schema", async () => {
    const res = await api("POST", "/api/pickjobs", jobBody());
    expect(res.status, res.text).toBe(201);
    const job = res.body;
    expect(res.headers.get("location")).toBe(`/api/pickjobs/${job.id}`);
    expect(job).toMatchObject({
      version: 1,
      status: "OPEN",
      facilityRef: facilityId,
      tenantOrderId: "R456728546",
      orderDate: "2020-02-03T08:45:50.525Z",
      resetBlocked: false,
      anonymized: false,
      workflowInformation: { isAvailable: false },
      documentHandling: { sendLabel: { enabled: false } },
      editor: { username: "ada.lovelace" },
    });
    expect(job.shortId).toMatch(/^[0-9A-Z]{6}$/);
    expect(job.documentsRef).toEqual(expect.any(String));
    expect(Date.parse(job.created)).not.toBeNaN();
    expect(job.lastModified).toBe(job.created);
    expect(job.pickLineItems).toHaveLength(2);
    for (const line of job.pickLineItems) {
      expect(line).toMatchObject({ picked: 0, status: "OPEN" });
      expect(line.id).toEqual(expect.any(String));
    }
    expect(job.pickLineItems[0].recordableAttributes[0].id).toEqual(expect.any(String));
    expectConformant("PickJob", job);

    const read = await api("GET", `/api/pickjobs/${job.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(job);
  });

  it("rejects a missing, unknown or foreign facility and invalid bodies with 400 naming the field", async () => {
    const { facilityRef: _, ...withoutFacility } = jobBody();
    const missing = await api("POST", "/api/pickjobs", withoutFacility);
    expect(missing.status).toBe(400);
    expect(missing.body[0].description).toContain("facilityRef");

    for (const ref of ["0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f", otherTenantFacilityId, "not-an-id"]) {
      const res = await api("POST", "/api/pickjobs", jobBody({ facilityRef: ref }));
      expect(res.status, ref).toBe(400);
      expect(res.body[0]).toMatchObject({ code: "FACILITY_NOT_FOUND" });
    }
    const bad = [
      jobBody({ unknownField: 1 }),
      jobBody({ pickLineItems: [{ article: { tenantArticleId: "1", title: "t" }, quantity: 0 }] }),
      jobBody({ pickLineItems: [{ article: { title: "t" }, quantity: 1 }] }),
      jobBody({ tags: [] }),
      jobBody({ status: "FLYING" }),
      jobBody({ orderDate: "yesterday" }),
    ];
    for (const body of bad) {
      const res = await api("POST", "/api/pickjobs", body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
    }
    const tagsAndProcess = await api("POST", "/api/pickjobs", jobBody({ tags: [{ id: "t", value: "v" }] }));
    expect(tagsAndProcess.status).toBe(400);
    expect(tagsAndProcess.body[0].code).toBe("TAGS_WITH_PROCESS");
    const closed = await api("POST", "/api/pickjobs", jobBody({ status: "CLOSED" }));
    expect(closed.status).toBe(400);
    expect(closed.body[0].code).toBe("STATUS_NOT_ALLOWED_ON_CREATION");
    expect(closed.body[0].description).toContain("OPEN, WAITING_FOR_INPUT, IN_PROGRESS, PAUSED");
  });

  it("a job created IN_PROGRESS (as legacy imports do) has open lines and is picked and closed as usual", async () => {
    const job = await create({ status: "IN_PROGRESS" });
    expect(job.status).toBe("IN_PROGRESS");
    expect(job.pickLineItems.map((l: any) => l.status)).toEqual(["OPEN", "OPEN"]);
    const picked = await ok(job.id, {
      name: "PICK",
      version: 1,
      lineItems: job.pickLineItems.map((l: any) => ({ id: l.id, picked: l.quantity })),
    });
    expect(picked.status).toBe("PICKED");
    expect((await ok(job.id, { name: "CLOSE", version: 2 })).status).toBe("CLOSED");
  });

  it("answers 404 for unknown ids and keeps other tenants out entirely", async () => {
    const job = await create();
    expect((await api("GET", "/api/pickjobs/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f")).status).toBe(404);
    expect((await api("GET", "/api/pickjobs/garbage")).status).toBe(404);
    expect((await other("GET", `/api/pickjobs/${job.id}`)).status).toBe(404);
    expect(
      (await other("POST", `/api/pickjobs/${job.id}/actions`, { name: "START", version: 1 })).status,
    ).toBe(404);
    expect(
      (
        await other("PATCH", `/api/pickjobs/${job.id}`, {
          version: 1,
          actions: [{ action: "ModifyPickJobLastEditor" }],
        })
      ).status,
    ).toBe(404);
    expect((await other("GET", `/api/pickjobs/${job.id}/returnnote`)).status).toBe(404);
    const search = await other("POST", "/api/pickjobs/search", { query: { id: { eq: job.id } } });
    expect(search.body.pickJobs).toEqual([]);
    const list = await other("GET", `/api/pickjobs?pickJobRefs=${job.id}`);
    expect(list.body).toEqual({ pickjobs: [], total: 0 });
    const run = await other("POST", "/api/pickruns", {
      facilityRef: otherTenantFacilityId,
      pickJobRefs: [job.id],
    });
    expect(run.status).toBe(400);
    // Nothing changed for the owner.
    expect((await api("GET", `/api/pickjobs/${job.id}`)).body.version).toBe(1);
  });

  it("needs PICKJOB_WRITE to create and PICKJOB_READ to read", async () => {
    const viewer = sys.as(await sys.token("acme", { roles: ["VIEWER"] }));
    expect((await viewer("POST", "/api/pickjobs", jobBody())).status).toBe(403);
    const picker = sys.as(await sys.token("acme", { roles: ["PICKER"] }));
    expect((await picker("POST", "/api/pickjobs", jobBody())).status).toBe(201);
    const auditor = sys.as(await sys.token("acme", { roles: ["AUDITOR"] }));
    expect((await auditor("POST", "/api/pickjobs/search", { query: {} })).status).toBe(403);
  });
});

describe("pick job lifecycle through actions", () => {
  it("START -> PICK -> CLOSE with a short pick ends CLOSED/SHORT_PICKED", async () => {
    const job = await create();
    const started = await ok(job.id, { name: "START", version: 1 });
    expect(started.status).toBe("IN_PROGRESS");
    expect(started.pickLineItems.map((l: any) => l.status)).toEqual(["IN_PROGRESS", "IN_PROGRESS"]);
    expect(started.version).toBe(2);
    const [a, b] = started.pickLineItems;
    const picked = await ok(job.id, {
      name: "PICK",
      version: 2,
      lineItems: [
        { id: a.id, picked: 4, scannedCodes: [{ code: "4006381333931", quantity: 4 }], stockEmptied: true },
        { id: b.id, picked: 8, shortPickReason: { reasonLocalized: { en_US: "damaged" } } },
      ],
    });
    expect(picked.status).toBe("PICKED");
    expect(picked.pickLineItems[0]).toMatchObject({
      picked: 4,
      status: "CLOSED",
      stockEmptied: true,
      scannedCodes: [{ code: "4006381333931", quantity: 4 }],
    });
    expect(picked.pickLineItems[1]).toMatchObject({ picked: 8, status: "CLOSED" });
    expect(picked.pickLineItems[1].shortPickReason.reasonLocalized).toEqual({ en_US: "damaged" });
    const closed = await ok(job.id, { name: "CLOSE", version: 3 });
    expect(closed).toMatchObject({ status: "CLOSED", subStatus: "SHORT_PICKED", version: 4 });
    expectConformant("PickJob", closed);

    // Closed is closed: picking again or starting is an invalid transition (422, clear message).
    const again = await act(job.id, { name: "START", version: 4 });
    expect(again.status).toBe(422);
    expect(again.body[0].code).toBe("INVALID_TRANSITION");
    expect(again.body[0].description).toMatch(/START.*CLOSED/);
    // RESET brings it back to OPEN with every pick undone.
    const reset = await ok(job.id, { name: "RESET", version: 4 });
    expect(reset.status).toBe("OPEN");
    expect(reset.subStatus).toBeUndefined();
    expect(reset.pickLineItems.map((l: any) => [l.picked, l.status])).toEqual([
      [0, "OPEN"],
      [0, "OPEN"],
    ]);
  });

  it("CLOSE with nothing picked aborts (ZERO_PICKED); CLOSE from OPEN is rejected", async () => {
    const job = await create();
    const early = await act(job.id, { name: "CLOSE", version: 1 });
    expect(early.status).toBe(422);
    await ok(job.id, { name: "START", version: 1 });
    const aborted = await ok(job.id, { name: "CLOSE", version: 2 });
    expect(aborted).toMatchObject({ status: "ABORTED", subStatus: "ZERO_PICKED" });
    const restarted = await ok(job.id, { name: "RESTART", version: 3 });
    expect(restarted.status).toBe("IN_PROGRESS");
  });

  it("PAUSE / RESTART, ABORT, CANCEL and OBSOLETE, each with an invalid transition", async () => {
    const job = await create();
    expect((await act(job.id, { name: "PAUSE", version: 1 })).status).toBe(422); // OPEN cannot pause
    await ok(job.id, { name: "START", version: 1 });
    expect((await ok(job.id, { name: "PAUSE", version: 2 })).status).toBe("PAUSED");
    expect((await ok(job.id, { name: "RESTART", version: 3 })).status).toBe("IN_PROGRESS");
    expect((await ok(job.id, { name: "ABORT", version: 4 })).status).toBe("ABORTED");

    const canceled = await create();
    expect((await ok(canceled.id, { name: "CANCEL", version: 1 })).status).toBe("CANCELED");
    expect((await act(canceled.id, { name: "RESTART", version: 2 })).status).toBe(422);
    expect((await act(canceled.id, { name: "CANCEL", version: 2 })).status).toBe(422);

    const obsolete = await create();
    expect((await ok(obsolete.id, { name: "OBSOLETE", version: 1 })).status).toBe("OBSOLETE");
    expect((await act(obsolete.id, { name: "START", version: 2 })).status).toBe(422);
    expect((await act(obsolete.id, { name: "ABORT", version: 2 })).status).toBe(422);
  });

  it("line and metadata actions: assigned users, split/merge, recordable attributes, line updates, target time", async () => {
    const job = await create({ deliveryinformation: { channel: "COLLECT" } });
    const users = await ok(job.id, {
      name: "REPLACE_ASSIGNED_USERS",
      version: 1,
      assignedUsers: [{ username: "grace" }, { userId: "u-7" }],
    });
    expect(users.assignedUsers).toEqual([
      { username: "grace", userId: "grace" },
      { userId: "u-7", username: "u-7" },
    ]);
    const soap = users.pickLineItems[1];
    const split = await ok(job.id, {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 2,
      splitLineItemsInfo: [{ lineItemId: soap.id, quantity: 3, picked: 0 }],
    });
    expect(split.pickLineItems).toHaveLength(3);
    expect(split.pickLineItems.map((l: any) => l.quantity)).toEqual([4, 7, 3]);
    expect(split.pickLineItems[2].originId).toBe(soap.id);
    const badSplit = await act(job.id, {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 3,
      splitLineItemsInfo: [{ lineItemId: soap.id, quantity: 7, picked: 0 }],
    });
    expect(badSplit.status).toBe(400);
    const merged = await ok(job.id, {
      name: "MERGE_LINE_ITEMS_PICK_JOB",
      version: 3,
      lineItemIds: [soap.id, split.pickLineItems[2].id],
    });
    expect(merged.pickLineItems.map((l: any) => l.quantity)).toEqual([4, 10]);
    const mismatched = await act(job.id, {
      name: "MERGE_LINE_ITEMS_PICK_JOB",
      version: 4,
      lineItemIds: merged.pickLineItems.map((l: any) => l.id),
    });
    expect(mismatched.status).toBeGreaterThanOrEqual(400);
    expect(mismatched.status).toBeLessThan(500);

    const attribute = merged.pickLineItems[0].recordableAttributes[0];
    const recorded = await ok(job.id, {
      name: "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
      version: 4,
      recordableAttributeUpdates: [{ recordableAttributeId: attribute.id, value: "Germany" }],
    });
    expect(recorded.pickLineItems[0].recordableAttributes[0]).toMatchObject({
      id: attribute.id,
      value: "Germany",
    });
    const unknownAttribute = await act(job.id, {
      name: "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
      version: 5,
      recordableAttributeUpdates: [{ recordableAttributeId: "nope", value: "x" }],
    });
    expect(unknownAttribute.status).toBe(400);

    const modified = await ok(job.id, {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 5,
      pickJobLineItemUpdates: [{ id: merged.pickLineItems[0].id, picked: 2, status: "IN_PROGRESS" }],
    });
    expect(modified.status).toBe("OPEN");
    expect(modified.pickLineItems[0]).toMatchObject({ picked: 2, status: "IN_PROGRESS" });
    const unknownLine = await act(job.id, {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 6,
      pickJobLineItemUpdates: [{ id: "no-such-line", picked: 1 }],
    });
    expect(unknownLine.status).toBe(400);

    const timed = await ok(job.id, {
      name: "ADD_TARGET_TIME",
      version: 6,
      targetTime: "2030-01-01T10:00:00.000Z",
    });
    expect(timed.deliveryinformation.targetTime).toBe("2030-01-01T10:00:00.000Z");
    const twice = await act(job.id, {
      name: "ADD_TARGET_TIME",
      version: 7,
      targetTime: "2030-01-02T10:00:00.000Z",
    });
    expect(twice.status).toBe(422);
    expect(twice.body[0].code).toBe("TARGET_TIME_ALREADY_SET");
  });

  it("rejects malformed action bodies with 400 naming the field, unknown actions included", async () => {
    const job = await create();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "FLY", version: 1 }, "name"],
      [{ name: "START" }, "version"],
      [{ name: "START", version: "1" }, "version"],
      [{ name: "START", version: 1, extra: true }, "extra"],
      [{ name: "PICK", version: 1, lineItems: [] }, "lineItems"],
      [{ name: "PICK", version: 1, lineItems: [{ picked: 1 }] }, "id"],
      [{ name: "ADD_TARGET_TIME", version: 1 }, "targetTime"],
      [{ name: "ATTACH_PICK_RUN", version: 1, pickRunRef: "x" }, "name"],
    ];
    for (const [body, field] of cases) {
      const res = await act(job.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body[0].description, JSON.stringify(body)).toContain(field);
    }
  });

  it("409 with both versions on a stale version", async () => {
    const job = await create();
    await ok(job.id, { name: "START", version: 1 });
    const stale = await act(job.id, { name: "PAUSE", version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2, code: "VERSION_CONFLICT" });
    const stalePatch = await api("PATCH", `/api/pickjobs/${job.id}`, {
      version: 1,
      actions: [{ action: "ModifyPickJobLastEditor" }],
    });
    expect(stalePatch.status).toBe(409);
  });

  it("20 concurrent actions on one version: exactly one wins, 19 get 409, the job is consistent", async () => {
    const job = await create();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        act(job.id, i % 2 ? { name: "START", version: 1 } : { name: "CANCEL", version: 1 }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = results.find((r) => r.status === 200)!.body;
    const final = (await api("GET", `/api/pickjobs/${job.id}`)).body;
    expect(final.version).toBe(2);
    expect(final.status).toBe(winner.status);
    expect(final).toEqual(winner);
  });
});

describe("picking quantities", () => {
  it("enforces measurement tolerances: hard over-pick 422, soft accepted, no over-pick without validation", async () => {
    const job = await create();
    await ok(job.id, { name: "START", version: 1 });
    const [water, soap] = job.pickLineItems;
    const hard = await act(job.id, { name: "PICK", version: 2, lineItems: [{ id: soap.id, picked: 13 }] });
    expect(hard.status).toBe(422);
    expect(hard.body[0].code).toBe("OVERPICK_TOLERANCE_EXCEEDED");
    const noValidation = await act(job.id, {
      name: "PICK",
      version: 2,
      lineItems: [{ id: water.id, picked: 5 }],
    });
    expect(noValidation.status).toBe(422);
    const tooShort = await act(job.id, { name: "PICK", version: 2, lineItems: [{ id: soap.id, picked: 4 }] });
    expect(tooShort.status).toBe(422);
    expect(tooShort.body[0].code).toBe("SHORTPICK_TOLERANCE_EXCEEDED");
    // 11 of 10 is within the hard tolerance (20 %), above the soft one (10 %): accepted.
    const soft = await ok(job.id, {
      name: "PICK",
      version: 2,
      lineItems: [
        { id: soap.id, picked: 11 },
        { id: water.id, picked: 4 },
      ],
    });
    expect(soft.pickLineItems.map((l: any) => l.picked)).toEqual([4, 11]);
  });

  it("substitutes: listed best first; picked substitutes count; unknown substitutes rejected", async () => {
    const job = await create();
    const line = job.pickLineItems[0];
    const subs = await api("GET", `/api/pickjobs/${job.id}/picklineitems/${line.id}/availablesubstitutes`);
    expect(subs.status).toBe(200);
    expect(subs.body.tenantArticleId).toBe("4711");
    expect(subs.body.substitutes.map((s: any) => s.tenantArticleId)).toEqual(["4713", "4712"]);
    expectConformant("ResolvedSubstitutes", subs.body);
    expect((await api("GET", `/api/pickjobs/${job.id}/picklineitems/nope/availablesubstitutes`)).status).toBe(
      404,
    );

    await ok(job.id, { name: "START", version: 1 });
    const wrong = await act(job.id, {
      name: "PICK",
      version: 2,
      lineItems: [
        { id: line.id, picked: 0, substituteLineItems: [{ tenantArticleId: "9999", quantity: 1 }] },
      ],
    });
    expect(wrong.status).toBe(422);
    const picked = await ok(job.id, {
      name: "PICK",
      version: 2,
      lineItems: [
        {
          id: line.id,
          picked: 0,
          substituteLineItems: [{ tenantArticleId: "4713", quantity: 4, picked: 4 }],
        },
        { id: job.pickLineItems[1].id, picked: 10 },
      ],
    });
    expect(picked.pickLineItems[0].substituteLineItems[0]).toMatchObject({
      article: { tenantArticleId: "4713", title: "Cologne Water Travel" },
      quantity: 4,
      picked: 4,
    });
    // Something (a substitute) was picked: closing closes, it does not abort.
    const closed = await ok(job.id, { name: "CLOSE", version: 3 });
    expect(closed.status).toBe("CLOSED");
    expectConformant("PickJob", closed);
  });

  it("partial stock locations record picks per stock", async () => {
    const job = await create({
      pickLineItems: [
        {
          article: { tenantArticleId: "1", title: "Rice" },
          quantity: 5,
          partialStockLocations: [
            { tenantPartialStockId: "A-1", stockRef: "s1", quantity: 3, location: { locationRef: "L1" } },
            { tenantPartialStockId: "B-2", stockRef: "s2", quantity: 2 },
          ],
        },
      ],
    });
    await ok(job.id, { name: "START", version: 1 });
    const line = job.pickLineItems[0];
    const picked = await ok(job.id, {
      name: "PICK",
      version: 2,
      lineItems: [
        {
          id: line.id,
          picked: 5,
          partialStockLocations: [
            { tenantPartialStockId: "A-1", picked: 3, stockEmptied: true },
            { tenantPartialStockId: "B-2", picked: 2 },
          ],
        },
      ],
    });
    expect(picked.pickLineItems[0].partialStockLocations).toMatchObject([
      { tenantPartialStockId: "A-1", picked: 3, stockEmptied: true },
      { tenantPartialStockId: "B-2", picked: 2 },
    ]);
    const unknown = await act(job.id, {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 3,
      pickJobLineItemUpdates: [
        { id: line.id, partialStockLocations: [{ tenantPartialStockId: "Z-9", picked: 1 }] },
      ],
    });
    expect(unknown.status).toBe(400);
  });
});

describe("deprecated PATCH /api/pickjobs/{id}", () => {
  it("the legacy flow: ModifyPickJob IN_PROGRESS, then lines + CLOSED in one patch; Deprecation header", async () => {
    const job = await create();
    const started = await api("PATCH", `/api/pickjobs/${job.id}`, {
      version: 1,
      actions: [{ action: "ModifyPickJob", status: "IN_PROGRESS" }],
    });
    expect(started.status, started.text).toBe(200);
    expect(started.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(started.headers.get("link")).toContain("/actions");
    expect(started.body).toMatchObject({ status: "IN_PROGRESS", version: 2 });
    const [a, b] = job.pickLineItems;
    const closed = await api("PATCH", `/api/pickjobs/${job.id}`, {
      version: 2,
      actions: [
        { action: "ModifyPickJob", status: "CLOSED" },
        { action: "ModifyPickLineItem", id: a.id, picked: 4, status: "CLOSED" },
        {
          action: "ModifyPickLineItem",
          id: b.id,
          picked: 10,
          status: "CLOSED",
          scannedCodes: [{ code: "x", quantity: 10 }],
        },
      ],
    });
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body).toMatchObject({ status: "CLOSED", version: 3 });
    expect(closed.body.subStatus).toBeUndefined();
    expect(closed.body.pickLineItems.map((l: any) => [l.picked, l.status])).toEqual([
      [4, "CLOSED"],
      [10, "CLOSED"],
    ]);
  });

  it("protected statuses and unknown actions are 400; invalid transitions 422; last editor take-over", async () => {
    const job = await create();
    for (const actions of [
      [{ action: "ModifyPickJob", status: "CANCELED" }],
      [{ action: "Explode" }],
      [{ action: "ModifyPickLineItem" }],
      [],
    ]) {
      const res = await api("PATCH", `/api/pickjobs/${job.id}`, { version: 1, actions });
      expect(res.status, JSON.stringify(actions)).toBe(400);
    }
    const invalid = await api("PATCH", `/api/pickjobs/${job.id}`, {
      version: 1,
      actions: [{ action: "ModifyPickJob", status: "PAUSED" }],
    });
    expect(invalid.status).toBe(422);
    const grace = sys.as(await sys.token("acme", { user: "grace" }));
    const takeover = await grace("PATCH", `/api/pickjobs/${job.id}`, {
      version: 1,
      actions: [{ action: "ModifyPickJobLastEditor" }, { action: "AbortPickJob" }],
    });
    expect(takeover.status, takeover.text).toBe(200);
    expect(takeover.body).toMatchObject({ editor: { username: "grace" }, status: "ABORTED", version: 2 });
  });
});

describe("documents and load units", () => {
  it("return note: 404 before picking and for COLLECT jobs; a PDF once picked", async () => {
    const job = await create();
    const before = await api("GET", `/api/pickjobs/${job.id}/returnnote`);
    expect(before.status).toBe(404);
    expect(before.body[0].code).toBe("RETURN_NOTE_NOT_FOUND");
    await ok(job.id, { name: "START", version: 1 });
    await ok(job.id, {
      name: "PICK",
      version: 2,
      lineItems: job.pickLineItems.map((l: any) => ({ id: l.id, picked: l.quantity })),
    });
    const res = await fetch(`${sys.baseUrl}/api/pickjobs/${job.id}/returnnote`, {
      headers: { authorization: `Bearer ${await sys.token("acme")}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(bytes.subarray(-8).toString()).toContain("%%EOF");

    const collect = await create({ deliveryinformation: { channel: "COLLECT" } });
    expect((await api("GET", `/api/pickjobs/${collect.id}/returnnote`)).status).toBe(404);
  });

  it("transfer label: a PDF for jobs with transfers, 404 without", async () => {
    const withTransfer = await create({
      transfers: [{ id: "018fe899-80ec-70f8-9bda-f7cc904bc0bf", type: "RECEIVER" }],
    });
    const res = await fetch(`${sys.baseUrl}/api/pickjobs/${withTransfer.id}/transferlabel`, {
      headers: { authorization: `Bearer ${await sys.token("acme")}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    const without = await create();
    expect((await api("GET", `/api/pickjobs/${without.id}/transferlabel`)).status).toBe(404);
  });

  it("delivery note: a PDF for every job, in English or German; 404 for unknown or foreign jobs; 400 for a bad locale", async () => {
    const job = await create();
    const pdfOf = async (path: string) => {
      const res = await fetch(`${sys.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${await sys.token("acme")}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(res.headers.get("content-disposition")).toBe(
        `inline; filename="deliverynote-${job.shortId}.pdf"`,
      );
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
      return bytes;
    };
    const english = await pdfOf(`/api/pickjobs/${job.id}/deliverynote`);
    const german = await pdfOf(`/api/pickjobs/${job.id}/deliverynote?locale=de_DE`);
    // The title is in the PDF's (uncompressed) info dictionary; the body differs with the language.
    expect(english.toString("latin1")).toContain("(Delivery note ");
    expect(german.equals(english)).toBe(false);
    expect((await pdfOf(`/api/pickjobs/${job.id}/deliverynote?locale=en_US`)).length).toBe(english.length);

    const bad = await api(
      "GET",
      `/api/pickjobs/${job.id}/deliverynote?locale=${encodeURIComponent("de DE;")}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body[0].description).toContain("locale");
    expect((await api("GET", "/api/pickjobs/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f/deliverynote")).status).toBe(
      404,
    );
    expect((await other("GET", `/api/pickjobs/${job.id}/deliverynote`)).status).toBe(404);
    const auditor = sys.as(await sys.token("acme", { roles: ["AUDITOR"] }));
    expect((await auditor("GET", `/api/pickjobs/${job.id}/deliverynote`)).status).toBe(403);
  });

  it("document handling: the job's DocumentHandling; 404 for unknown or foreign jobs", async () => {
    const job = await create();
    const res = await api("GET", `/api/pickjobs/${job.id}/documenthandling`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ sendLabel: { enabled: false } });
    expectConformant("DocumentHandling", res.body);
    expect(
      (await api("GET", "/api/pickjobs/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f/documenthandling")).status,
    ).toBe(404);
    expect((await other("GET", `/api/pickjobs/${job.id}/documenthandling`)).status).toBe(404);
  });

  it("pick job load units: POST creates one for the job, GET lists them; body and job are checked", async () => {
    const job = await create();
    const res = await api("POST", `/api/pickjobs/${job.id}/loadunits`, { codes: ["LU-1"] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ pickJobRefs: [job.id], facilityRef: facilityId, status: "AVAILABLE" });
    expectConformant("LoadUnit", res.body);
    const list = await api("GET", `/api/pickjobs/${job.id}/loadunits`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ loadUnits: [res.body], total: 1 });
    expectConformant("LoadUnits", list.body);
    expect((await api("POST", `/api/pickjobs/${job.id}/loadunits`, {})).status).toBe(400);
    const unknown = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
    expect((await api("POST", `/api/pickjobs/${unknown}/loadunits`, { codes: ["x"] })).status).toBe(404);
    expect((await api("GET", `/api/pickjobs/${unknown}/loadunits`)).status).toBe(404);
  });
});

describe("list endpoint and events", () => {
  it("GET /api/pickjobs filters and pages (StrippedPickJobs)", async () => {
    const a = await create({ tenantOrderId: "LIST-A", deliveryinformation: { channel: "COLLECT" } });
    const b = await create({ tenantOrderId: "LIST-B" });
    await ok(b.id, { name: "START", version: 1 });
    const byOrder = await api("GET", "/api/pickjobs?tenantOrderId=LIST-A");
    expect(byOrder.status).toBe(200);
    expect(byOrder.body.total).toBe(1);
    expect(byOrder.body.pickjobs[0]).toMatchObject({ id: a.id, status: "OPEN", facilityRef: facilityId });
    expectConformant("StrippedPickJobs", byOrder.body);
    const both = await api("GET", `/api/pickjobs?pickJobRefs=${a.id},${b.id}&status=IN_PROGRESS`);
    expect(both.body.pickjobs.map((j: any) => j.id)).toEqual([b.id]);
    const collect = await api("GET", `/api/pickjobs?channel=COLLECT&pickJobRefs=${a.id},${b.id}`);
    expect(collect.body.pickjobs.map((j: any) => j.id)).toEqual([a.id]);
    const term = await api("GET", "/api/pickjobs?searchTerm=list-b");
    expect(term.body.pickjobs.map((j: any) => j.id)).toEqual([b.id]);
    const page1 = await api("GET", `/api/pickjobs?size=1&pickJobRefs=${a.id},${b.id}`);
    const page2 = await api(
      "GET",
      `/api/pickjobs?size=1&pickJobRefs=${a.id},${b.id}&startAfterId=${page1.body.pickjobs[0].id}`,
    );
    expect([...page1.body.pickjobs, ...page2.body.pickjobs].map((j: any) => j.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    // Ordered by another key, both directions: startAfterId continues after that job's position.
    const c = await create({
      tenantOrderId: "LIST-C",
      deliveryinformation: { targetTime: "2030-01-01T00:00:00Z" },
    });
    const refs = `pickJobRefs=${a.id},${b.id},${c.id}`;
    for (const orderBy of ["targetTime", "-targetTime", "created", "-created"]) {
      const seen: string[] = [];
      let after = "";
      for (let i = 0; i < 4; i++) {
        const res = await api("GET", `/api/pickjobs?size=1&orderBy=${orderBy}&${refs}${after}`);
        expect(res.status, res.text).toBe(200);
        if (res.body.pickjobs.length === 0) break;
        seen.push(res.body.pickjobs[0].id);
        after = `&startAfterId=${res.body.pickjobs[0].id}`;
      }
      const all = (await api("GET", `/api/pickjobs?orderBy=${orderBy}&${refs}`)).body.pickjobs.map(
        (j: any) => j.id,
      );
      expect(seen, orderBy).toEqual(all);
      expect(new Set(seen).size, orderBy).toBe(3);
    }
    // consumerName: a case-insensitive substring of the recipient's name (a and c replaced the
    // deliveryinformation that carries it).
    const byName = await api("GET", `/api/pickjobs?consumerName=maxine%20mul&${refs}`);
    expect(byName.body.pickjobs.map((j: any) => j.id)).toEqual([b.id]);
    expect((await api("GET", `/api/pickjobs?consumerName=nobody&${refs}`)).body.total).toBe(0);
    expect((await api("GET", "/api/pickjobs?size=501")).status).toBe(400);
    expect((await api("GET", "/api/pickjobs?orderBy=price")).status).toBe(400);
  });

  it("PICK_JOB_CREATED and PICK_JOB_CLOSED reach the audit log", async () => {
    const job = await create();
    await ok(job.id, { name: "START", version: 1 });
    await ok(job.id, {
      name: "PICK",
      version: 2,
      lineItems: job.pickLineItems.map((l: any) => ({ id: l.id, picked: l.quantity })),
    });
    await ok(job.id, { name: "CLOSE", version: 3 });
    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityRef: { eq: job.id } },
        sort: [{ created: "ASC" }],
      });
      return res.body.audits?.length >= 4 ? res.body.audits : undefined;
    });
    expect(audits.map((a: any) => a.operation.name)).toEqual([
      "PICK_JOB_CREATED",
      "PICK_JOB_STARTED",
      "PICK_JOB_PICKED",
      "PICK_JOB_CLOSED",
    ]);
    expect(audits.map((a: any) => a.entityVersion)).toEqual([1, 2, 3, 4]);
    expect(audits[0]).toMatchObject({
      entityType: "PICK_JOB",
      actor: { details: { username: "ada.lovelace" } },
    });
  });
});
