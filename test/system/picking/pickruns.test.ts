/**
 * Pick runs through the gateway: creation over jobs of one facility (batch aggregation, multiOrder,
 * default and deprecated types, every rejection), THE flow (a batch run started, picked through the
 * run with PATCH, finished: both jobs PICKED with the aggregated quantity distributed in job order,
 * then closed as jobs), every run action with its happy path and an invalid transition, the
 * deprecated PATCH forms, versions, tenancy, events in the audit log, and every PickRun response
 * checked against the reference's PickRun schema (the internal lineSources never shows).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { type ApiResponse, eventually, type System, startSystem } from "../../support/system.ts";

if (referenceMissing) console.warn(referenceMissing);

let sys: System;
let api: ReturnType<System["as"]>;
let grace: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let otherFacilityId: string;
let globexFacilityId: string;

const UNKNOWN_ID = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "ada" }));
  grace = sys.as(await sys.token("acme", { user: "grace" }));
  other = sys.as(await sys.token("globex"));
  facilityId = (await api("POST", "/api/facilities", { name: "Store 1", address: facilityAddress })).body.id;
  otherFacilityId = (await api("POST", "/api/facilities", { name: "Store 2", address: facilityAddress })).body
    .id;
  globexFacilityId = (await other("POST", "/api/facilities", { name: "Globex 1", address: facilityAddress }))
    .body.id;
  expect([facilityId, otherFacilityId, globexFacilityId].every(Boolean)).toBe(true);
});
afterAll(() => sys?.close());

/** A job with the shared article "WATER" (`quantity` pieces) and one article of its own. */
async function job(quantity: number, own: string, facilityRef = facilityId) {
  const res = await api("POST", "/api/pickjobs", {
    facilityRef,
    orderDate: "2026-01-01T10:00:00.000Z",
    tenantOrderId: `ORDER-${own}`,
    pickLineItems: [
      { article: { tenantArticleId: "WATER", title: "Water" }, quantity, globalLineItemId: `g-${own}` },
      { article: { tenantArticleId: own, title: `Own ${own}` }, quantity: 1 },
    ],
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Every pick run the API returns: the reference's PickRun, without the internal lineSources. */
function conformant(run: unknown) {
  if (!referenceMissing) expect(referenceErrors("PickRun", run), JSON.stringify(run)).toEqual([]);
  expect(JSON.stringify(run)).not.toContain("lineSources");
}
/** A successful pick run response (`status` 200 unless said), checked, its body returned. */
function ok(res: ApiResponse, status = 200) {
  expect(res.status, res.text).toBe(status);
  conformant(res.body);
  return res.body;
}
const createRun = (body: Record<string, unknown>, as = api) => as("POST", "/api/pickruns", body);
const runAction = (id: string, body: Record<string, unknown>, as = api) =>
  as("POST", `/api/pickruns/${id}/actions`, body);
const patchRun = (id: string, body: Record<string, unknown>) => api("PATCH", `/api/pickruns/${id}`, body);
const getJob = async (id: string) => {
  const res = await api("GET", `/api/pickjobs/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
};
/** 422 INVALID_TRANSITION. */
async function invalidTransition(res: Promise<ApiResponse>) {
  const r = await res;
  expect(r.status, r.text).toBe(422);
  expect(r.body[0].code).toBe("INVALID_TRANSITION");
}
const byArticle = (lines: any[], id: string) => lines.filter((l: any) => l.article.tenantArticleId === id);
const pickedOf = (j: any) => j.pickLineItems.map((l: any) => [l.article.tenantArticleId, l.picked]);

async function auditsOf(entityRef: string, expected: number): Promise<any[]> {
  const audits = await eventually(async () => {
    const res = await api("POST", "/api/audits/search", {
      query: { entityRef: { eq: entityRef } },
      sort: [{ created: "ASC" }],
      size: 100,
    });
    expect(res.status, res.text).toBe(200);
    return res.body.audits.length >= expected ? (res.body.audits as any[]) : undefined;
  });
  return [...audits].sort((a, b) => a.entityVersion - b.entityVersion);
}

describe("creating pick runs", () => {
  it("a batch run by default: 201 + Location, OPEN, version 1, the shared article aggregated, jobs attached", async () => {
    const a = await job(3, "A");
    const b = await job(2, "B");
    const res = await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id] });
    const run = ok(res, 201);
    expect(res.headers.get("location")).toBe(`/api/pickruns/${run.id}`);
    expect(run).toMatchObject({
      status: "OPEN",
      version: 1,
      pickRunType: "batchPick", // the reference's schema default
      facilityRef: facilityId,
      pickJobRefs: [a.id, b.id],
      editor: { username: "ada" },
    });
    expect(run.id).toEqual(expect.any(String));
    expect(Date.parse(run.created)).not.toBeNaN();
    // WATER is one line (3 + 2) naming both global line items; the own articles stay separate.
    expect(run.pickLineItems).toHaveLength(3);
    const [water] = byArticle(run.pickLineItems, "WATER");
    expect(water).toMatchObject({ quantity: 5, picked: 0, status: "OPEN", article: { title: "Water" } });
    expect(water.globalLineItemIds).toEqual(["g-A", "g-B"]);
    expect(byArticle(run.pickLineItems, "A")[0]).toMatchObject({ quantity: 1, picked: 0, status: "OPEN" });
    expect(byArticle(run.pickLineItems, "B")[0]).toMatchObject({ quantity: 1, picked: 0, status: "OPEN" });
    expect(new Set(run.pickLineItems.map((l: any) => l.id)).size).toBe(3);
    // Both jobs now belong to the run, and are otherwise unchanged.
    for (const j of [a, b]) {
      const now = await getJob(j.id);
      expect(now.pickRunRef).toBe(run.id);
      expect(now.status).toBe("OPEN");
    }
    const read = await api("GET", `/api/pickruns/${run.id}`);
    expect(read.body).toEqual(ok(read));
  });

  it("multiOrder keeps one line per job line (pickJobRef, pickJobLineItemRef); deprecated types are kept as sent and built as their replacements", async () => {
    const a = await job(1, "C");
    const b = await job(2, "D");
    const multi = ok(
      await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id], pickRunType: "multiOrderPick" }),
      201,
    );
    expect(multi.pickRunType).toBe("multiOrderPick");
    expect(
      multi.pickLineItems.map((l: any) => [
        l.pickJobRef,
        l.pickJobLineItemRef,
        l.article.tenantArticleId,
        l.quantity,
      ]),
    ).toEqual([
      [a.id, a.pickLineItems[0].id, "WATER", 1],
      [a.id, a.pickLineItems[1].id, "C", 1],
      [b.id, b.pickLineItems[0].id, "WATER", 2],
      [b.id, b.pickLineItems[1].id, "D", 1],
    ]);

    const types: [string, string][] = [
      ["batchPick", "batchPick"],
      ["batch", "batch"],
      ["multiOrder", "multiOrder"],
    ];
    for (const [requested, stored] of types) {
      const j = await job(1, `E-${requested}`);
      const run = ok(
        await createRun({ facilityRef: facilityId, pickJobRefs: [j.id], pickRunType: requested }),
        201,
      );
      expect(run.pickRunType, requested).toBe(stored);
      const read = await api("GET", `/api/pickruns/${run.id}`);
      expect(ok(read)).toEqual(run);
    }
  });

  it("multiOrderPick round trip: the deprecated type is answered as sent by POST, GET and after an action, with multiOrder's lines", async () => {
    const a = await job(1, "MOP-A");
    const b = await job(2, "MOP-B");
    const created = ok(
      await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id], pickRunType: "multiOrderPick" }),
      201,
    );
    expect(created.pickRunType).toBe("multiOrderPick");
    // Built as multiOrder: one run line per job line, each naming its job.
    expect(created.pickLineItems.map((l: any) => [l.pickJobRef, l.pickJobLineItemRef])).toEqual([
      [a.id, a.pickLineItems[0].id],
      [a.id, a.pickLineItems[1].id],
      [b.id, b.pickLineItems[0].id],
      [b.id, b.pickLineItems[1].id],
    ]);
    expect(ok(await api("GET", `/api/pickruns/${created.id}`)).pickRunType).toBe("multiOrderPick");
    const started = ok(await runAction(created.id, { name: "START", version: 1 }));
    expect(started).toMatchObject({ status: "IN_PROGRESS", pickRunType: "multiOrderPick" });
    expect(ok(await api("GET", `/api/pickruns/${created.id}`)).pickRunType).toBe("multiOrderPick");
  });

  it("rejects: another facility's job, unknown job, empty or missing fields (400); a job already in a run, a CLOSED or CANCELED job (422); another tenant's job (400)", async () => {
    const here = await job(1, "F");
    const there = await job(1, "G", otherFacilityId);
    const cases: [Record<string, unknown>, number, string?][] = [
      [{ facilityRef: facilityId, pickJobRefs: [here.id, there.id] }, 400, "PICK_JOB_IN_OTHER_FACILITY"],
      [{ facilityRef: facilityId, pickJobRefs: [UNKNOWN_ID] }, 400, "PICK_JOB_NOT_FOUND"],
      [{ facilityRef: facilityId, pickJobRefs: [here.id, "not-an-id"] }, 400],
      [{ facilityRef: facilityId, pickJobRefs: [] }, 400],
      [{ facilityRef: facilityId }, 400],
      [{ pickJobRefs: [here.id] }, 400],
      [{ facilityRef: facilityId, pickJobRefs: [here.id], pickRunType: "fast" }, 400],
      [{ facilityRef: facilityId, pickJobRefs: [here.id, here.id] }, 400],
    ];
    for (const [body, status, code] of cases) {
      const res = await createRun(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body[0], JSON.stringify(body)).toMatchObject({ summary: expect.any(String) });
      if (code) expect(res.body[0].code).toBe(code);
    }
    // Nothing was attached by the failed attempts.
    expect((await getJob(here.id)).pickRunRef).toBeUndefined();
    expect((await getJob(there.id)).pickRunRef).toBeUndefined();

    const first = ok(await createRun({ facilityRef: facilityId, pickJobRefs: [here.id] }), 201);
    const again = await createRun({ facilityRef: facilityId, pickJobRefs: [here.id] });
    expect(again.status, again.text).toBe(422);
    expect(again.body[0].code).toBe("PICK_JOB_NOT_AVAILABLE");
    // ...also when it comes second: the whole creation fails, the first job stays free.
    const free = await job(1, "F2");
    expect((await createRun({ facilityRef: facilityId, pickJobRefs: [free.id, here.id] })).status).toBe(422);
    expect((await getJob(free.id)).pickRunRef).toBeUndefined();

    // A CLOSED job (started, picked, closed through its own actions).
    const closed = await job(1, "H");
    const act = (body: Record<string, unknown>) => api("POST", `/api/pickjobs/${closed.id}/actions`, body);
    expect((await act({ name: "START", version: 1 })).status).toBe(200);
    const picked = await act({
      name: "PICK",
      version: 2,
      lineItems: closed.pickLineItems.map((l: any) => ({ id: l.id, picked: l.quantity })),
    });
    expect(picked.status, picked.text).toBe(200);
    expect((await act({ name: "CLOSE", version: 3 })).body.status).toBe("CLOSED");
    const ofClosed = await createRun({ facilityRef: facilityId, pickJobRefs: [closed.id] });
    expect(ofClosed.status, ofClosed.text).toBe(422);
    expect(ofClosed.body[0].code).toBe("PICK_JOB_NOT_AVAILABLE");

    const canceled = await job(1, "H2");
    expect(
      (await api("POST", `/api/pickjobs/${canceled.id}/actions`, { name: "CANCEL", version: 1 })).status,
    ).toBe(200);
    expect((await createRun({ facilityRef: facilityId, pickJobRefs: [canceled.id] })).status).toBe(422);

    // Another tenant cannot use acme's job, neither with its own facility nor with acme's.
    const free2 = await job(1, "F3");
    for (const facilityRef of [globexFacilityId, facilityId]) {
      const foreign = await createRun({ facilityRef, pickJobRefs: [free2.id] }, other);
      expect(foreign.status, foreign.text).toBe(400);
    }
    expect((await getJob(free2.id)).pickRunRef).toBeUndefined();
    expect((await other("GET", `/api/pickruns/${first.id}`)).status).toBe(404);
    expect((await runAction(first.id, { name: "START", version: 1 }, other)).status).toBe(404);
    expect((await getJob(here.id)).status).toBe("OPEN");
  });

  it("GET answers 404 for unknown ids and ids that are no ids", async () => {
    expect((await api("GET", `/api/pickruns/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await api("GET", "/api/pickruns/garbage")).status).toBe(404);
    expect((await runAction(UNKNOWN_ID, { name: "START", version: 1 })).status).toBe(404);
    expect((await patchRun(UNKNOWN_ID, { version: 1, actions: [{ action: "StartPickRun" }] })).status).toBe(
      404,
    );
  });
});

describe("picking through a batch run (the issue's flow)", () => {
  it("START, PATCH picks (409 when stale), FINISH: the run CLOSED, both jobs PICKED with the quantities distributed in job order, then closed as jobs", async () => {
    const a = await job(3, "A1");
    const b = await job(2, "B1");
    const run = ok(await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id] }), 201);

    const started = ok(await runAction(run.id, { name: "START", version: 1 }));
    expect(started).toMatchObject({ status: "IN_PROGRESS", version: 2 });
    expect((await getJob(a.id)).status).toBe("IN_PROGRESS");
    expect((await getJob(b.id)).status).toBe("IN_PROGRESS");
    await invalidTransition(runAction(run.id, { name: "START", version: 2 }));

    const [water] = byArticle(run.pickLineItems, "WATER");
    const stale = await patchRun(run.id, {
      version: 1,
      actions: [{ action: "ModifyPickRunLineItem", id: water.id, picked: 5 }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ code: "VERSION_CONFLICT" });

    // 4 of 5 WATER: A (first job) gets all its 3, B the remaining 1.
    const own = run.pickLineItems.filter((l: any) => l.id !== water.id);
    const picked = ok(
      await patchRun(run.id, {
        version: 2,
        actions: [
          { action: "ModifyPickRunLineItem", id: water.id, picked: 4, status: "CLOSED" },
          ...own.map((l: any) => ({
            action: "ModifyPickRunLineItem",
            id: l.id,
            picked: 1,
            status: "CLOSED",
          })),
        ],
      }),
    );
    expect(picked.version).toBe(3);
    expect(picked.status).toBe("IN_PROGRESS");
    expect(picked.pickLineItems.map((l: any) => [l.article.tenantArticleId, l.picked, l.status])).toEqual([
      ["WATER", 4, "CLOSED"],
      ["A1", 1, "CLOSED"],
      ["B1", 1, "CLOSED"],
    ]);
    expect(pickedOf(await getJob(a.id))).toEqual([
      ["WATER", 3],
      ["A1", 1],
    ]);
    expect(pickedOf(await getJob(b.id))).toEqual([
      ["WATER", 1],
      ["B1", 1],
    ]);
    const unknownLine = await patchRun(run.id, {
      version: 3,
      actions: [{ action: "ModifyPickRunLineItem", id: "nope", picked: 1 }],
    });
    expect(unknownLine.status).toBe(400);

    const finished = ok(await runAction(run.id, { name: "FINISH", version: 3 }));
    expect(finished).toMatchObject({ status: "CLOSED", version: 4 });
    expect(finished.pickLineItems.map((l: any) => l.picked)).toEqual([4, 1, 1]);
    const [ja, jb] = [await getJob(a.id), await getJob(b.id)];
    expect(ja.status).toBe("PICKED");
    expect(jb.status).toBe("PICKED");
    expect(pickedOf(ja)).toEqual([
      ["WATER", 3],
      ["A1", 1],
    ]);
    expect(pickedOf(jb)).toEqual([
      ["WATER", 1],
      ["B1", 1],
    ]);
    expect(ja.pickRunRef).toBe(run.id);

    // The jobs close through their own actions with the quantities the run recorded.
    const closeA = await api("POST", `/api/pickjobs/${a.id}/actions`, { name: "CLOSE", version: ja.version });
    expect(closeA.status, closeA.text).toBe(200);
    expect(closeA.body.status).toBe("CLOSED");
    expect(closeA.body.subStatus).toBeUndefined();
    const closeB = await api("POST", `/api/pickjobs/${b.id}/actions`, { name: "CLOSE", version: jb.version });
    expect(closeB.status, closeB.text).toBe(200);
    expect(closeB.body).toMatchObject({ status: "CLOSED", subStatus: "SHORT_PICKED" });

    // A closed run accepts nothing more.
    for (const name of ["START", "PAUSE", "RESUME", "FINISH", "CANCEL", "TAKE_OVER_PICK_RUN"]) {
      await invalidTransition(runAction(run.id, { name, version: 4 }));
    }
    await invalidTransition(
      patchRun(run.id, {
        version: 4,
        actions: [{ action: "ModifyPickRunLineItem", id: water.id, picked: 5 }],
      }),
    );
    expect(ok(await api("GET", `/api/pickruns/${run.id}`))).toEqual(finished);

    // Events: the run's, in version order, and each job's (created, started, picked, closed).
    const runAudits = await auditsOf(run.id, 4);
    expect(runAudits.map((x) => [x.entityVersion, x.operation.name])).toEqual([
      [1, "PICK_RUN_CREATED"],
      [2, "PICK_RUN_STARTED"],
      [3, "PICK_RUN_UPDATED"],
      [4, "PICK_RUN_FINISHED"],
    ]);
    expect(runAudits.every((x) => x.entityType === "PICK_RUN")).toBe(true);
    expect(runAudits[0].actor.details.username).toBe("ada");
    for (const closedJob of [closeA.body, closeB.body]) {
      const jobAudits = await auditsOf(closedJob.id, closedJob.version);
      expect(jobAudits.map((x) => x.entityVersion)).toEqual(
        Array.from({ length: closedJob.version }, (_, i) => i + 1),
      );
      expect(jobAudits.every((x) => x.entityType === "PICK_JOB")).toBe(true);
      expect(jobAudits.map((x) => x.operation.name).filter((n: string) => n !== "PICK_JOB_UPDATED")).toEqual([
        "PICK_JOB_CREATED",
        "PICK_JOB_STARTED",
        "PICK_JOB_PICKED",
        "PICK_JOB_CLOSED",
      ]);
    }
  });
});

describe("run actions", () => {
  it("START starts the run's OPEN and PAUSED jobs and leaves running ones as they are", async () => {
    const open = await job(1, "S-OPEN");
    const paused = await job(1, "S-PAUSED");
    expect(
      (await api("POST", `/api/pickjobs/${paused.id}/actions`, { name: "START", version: 1 })).status,
    ).toBe(200);
    expect(
      (await api("POST", `/api/pickjobs/${paused.id}/actions`, { name: "PAUSE", version: 2 })).status,
    ).toBe(200);
    const running = await job(1, "S-RUNNING");
    expect(
      (await api("POST", `/api/pickjobs/${running.id}/actions`, { name: "START", version: 1 })).status,
    ).toBe(200);
    const run = ok(
      await createRun({ facilityRef: facilityId, pickJobRefs: [open.id, paused.id, running.id] }),
      201,
    );
    ok(await runAction(run.id, { name: "START", version: run.version }));
    expect((await getJob(open.id)).status).toBe("IN_PROGRESS");
    expect((await getJob(paused.id)).status).toBe("IN_PROGRESS");
    const stillRunning = await getJob(running.id);
    expect(stillRunning.status).toBe("IN_PROGRESS");
    // Not started again: attached to the run (one change), nothing else.
    expect(stillRunning.version).toBe(3);
  });

  it("PAUSE / RESUME, TAKE_OVER_PICK_RUN, SPLIT_LINES_PICK_RUN, REMOVE_PICK_JOB and CANCEL, each with an invalid transition", async () => {
    const a = await job(4, "I");
    const b = await job(2, "J");
    const run = ok(await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id] }), 201);
    await invalidTransition(runAction(run.id, { name: "PAUSE", version: 1 })); // OPEN cannot pause
    await invalidTransition(runAction(run.id, { name: "RESUME", version: 1 }));
    await invalidTransition(runAction(run.id, { name: "FINISH", version: 1 })); // nor finish
    ok(await runAction(run.id, { name: "START", version: 1 }));
    expect(ok(await runAction(run.id, { name: "PAUSE", version: 2 })).status).toBe("PAUSED");
    await invalidTransition(runAction(run.id, { name: "PAUSE", version: 3 }));
    await invalidTransition(runAction(run.id, { name: "FINISH", version: 3 })); // paused runs do not finish
    await invalidTransition(runAction(run.id, { name: "START", version: 3 }));
    expect(ok(await runAction(run.id, { name: "RESUME", version: 3 })).status).toBe("IN_PROGRESS");
    await invalidTransition(runAction(run.id, { name: "RESUME", version: 4 }));

    // Take over: the editor becomes the caller.
    expect((await api("GET", `/api/pickruns/${run.id}`)).body.editor).toMatchObject({ username: "ada" });
    const taken = ok(await runAction(run.id, { name: "TAKE_OVER_PICK_RUN", version: 4 }, grace));
    expect(taken).toMatchObject({ version: 5, status: "IN_PROGRESS", editor: { username: "grace" } });

    // Split: WATER (4 + 2) into 4 and 2, the new line remembering its origin.
    const [water] = byArticle(taken.pickLineItems, "WATER");
    expect(water.quantity).toBe(6);
    const split = ok(
      await runAction(run.id, {
        name: "SPLIT_LINES_PICK_RUN",
        version: 5,
        splitLineItemsInfo: [{ lineItemId: water.id, quantity: 2, picked: 0 }],
      }),
    );
    const waters = byArticle(split.pickLineItems, "WATER");
    expect(waters.map((l: any) => [l.id === water.id, l.quantity])).toEqual([
      [true, 4],
      [false, 2],
    ]);
    expect(waters[1].originId).toBe(water.id);
    expect(split.pickLineItems).toHaveLength(4);
    for (const bad of [
      [{ lineItemId: "nope", quantity: 1, picked: 0 }],
      [{ lineItemId: water.id, quantity: 4, picked: 0 }], // all of it is no split
    ]) {
      const res = await runAction(run.id, {
        name: "SPLIT_LINES_PICK_RUN",
        version: 6,
        splitLineItemsInfo: bad,
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }

    // Remove J: its pickRunRef is cleared, its lines leave the run.
    const removed = ok(
      await runAction(run.id, { name: "REMOVE_PICK_JOB", version: 6, payload: { pickJobId: b.id } }),
    );
    expect(removed.pickJobRefs).toEqual([a.id]);
    expect(byArticle(removed.pickLineItems, "J")).toEqual([]);
    expect(byArticle(removed.pickLineItems, "WATER").map((l: any) => l.quantity)).toEqual([4]);
    expect(removed.pickLineItems).toHaveLength(2);
    const jb = await getJob(b.id);
    expect(jb.pickRunRef).toBeUndefined();
    expect(jb.status).toBe("IN_PROGRESS");
    const notInRun = await runAction(run.id, {
      name: "REMOVE_PICK_JOB",
      version: 7,
      payload: { pickJobId: b.id },
    });
    expect(notInRun.status).toBe(400);
    // The freed job can join another run.
    ok(await createRun({ facilityRef: facilityId, pickJobRefs: [b.id] }), 201);

    // Cancel: the jobs are detached and keep their status.
    const canceled = ok(await runAction(run.id, { name: "CANCEL", version: 7 }));
    expect(canceled).toMatchObject({ status: "CANCELED", version: 8 });
    const ja = await getJob(a.id);
    expect(ja.pickRunRef).toBeUndefined();
    expect(ja.status).toBe("IN_PROGRESS");
    for (const body of [
      { name: "CANCEL" },
      { name: "RESUME" },
      { name: "TAKE_OVER_PICK_RUN" },
      { name: "REMOVE_PICK_JOB", payload: { pickJobId: a.id } },
      {
        name: "SPLIT_LINES_PICK_RUN",
        splitLineItemsInfo: [{ lineItemId: waters[0].id, quantity: 1, picked: 0 }],
      },
    ]) {
      await invalidTransition(runAction(run.id, { ...body, version: 8 }));
    }
    // Stale versions are 409 before anything else.
    const stale = await runAction(run.id, { name: "START", version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ code: "VERSION_CONFLICT", requestVersion: 1, version: 8 });

    const audits = await auditsOf(run.id, 8);
    expect(audits.map((x) => x.operation.name)).toEqual([
      "PICK_RUN_CREATED",
      "PICK_RUN_STARTED",
      "PICK_RUN_PAUSED",
      "PICK_RUN_RESUMED",
      "PICK_RUN_UPDATED",
      "PICK_RUN_UPDATED",
      "PICK_RUN_UPDATED",
      "PICK_RUN_CANCELED",
    ]);
    expect(audits[4].actor.details.username).toBe("grace");
  });

  it("rejects malformed action bodies with 400", async () => {
    const j = await job(1, "M");
    const run = ok(await createRun({ facilityRef: facilityId, pickJobRefs: [j.id] }), 201);
    for (const body of [
      { name: "FLY", version: 1 },
      { name: "START" },
      { name: "START", version: "1" },
      { name: "START", version: 1, extra: true },
      { name: "REMOVE_PICK_JOB", version: 1 },
      { name: "REMOVE_PICK_JOB", version: 1, payload: {} },
      { name: "SPLIT_LINES_PICK_RUN", version: 1 },
      { name: "SPLIT_LINES_PICK_RUN", version: 1, splitLineItemsInfo: [{ lineItemId: "x", quantity: 1 }] },
    ]) {
      const res = await runAction(run.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await api("GET", `/api/pickruns/${run.id}`)).body.version).toBe(1);
  });
});

describe("deprecated PATCH forms", () => {
  it("PATCH /api/pickruns/{id}/pickjobs RemovePickJobFromPickRun (Deprecation header), then StartPickRun and lines + FinishPickRun via PATCH", async () => {
    const a = await job(1, "K");
    const b = await job(1, "L");
    const run = ok(await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id] }), 201);
    expect(byArticle(run.pickLineItems, "WATER")[0].quantity).toBe(2);

    const removed = await api("PATCH", `/api/pickruns/${run.id}/pickjobs`, {
      version: 1,
      actions: [{ action: "RemovePickJobFromPickRun", pickJobRef: b.id }],
    });
    ok(removed);
    expect(removed.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(removed.body).toMatchObject({ version: 2, pickJobRefs: [a.id] });
    // The aggregated line shrinks by the removed job's quantity; its own line is gone.
    expect(byArticle(removed.body.pickLineItems, "WATER").map((l: any) => l.quantity)).toEqual([1]);
    expect(byArticle(removed.body.pickLineItems, "L")).toEqual([]);
    expect((await getJob(b.id)).pickRunRef).toBeUndefined();
    const notInRun = await api("PATCH", `/api/pickruns/${run.id}/pickjobs`, {
      version: 2,
      actions: [{ action: "RemovePickJobFromPickRun", pickJobRef: b.id }],
    });
    expect(notInRun.status).toBe(400);
    const stale = await api("PATCH", `/api/pickruns/${run.id}/pickjobs`, {
      version: 1,
      actions: [{ action: "RemovePickJobFromPickRun", pickJobRef: a.id }],
    });
    expect(stale.status).toBe(409);

    const started = ok(await patchRun(run.id, { version: 2, actions: [{ action: "StartPickRun" }] }));
    expect(started).toMatchObject({ status: "IN_PROGRESS", version: 3 });
    expect((await getJob(a.id)).status).toBe("IN_PROGRESS");
    await invalidTransition(patchRun(run.id, { version: 3, actions: [{ action: "StartPickRun" }] }));

    const finished = ok(
      await patchRun(run.id, {
        version: 3,
        actions: [
          ...started.pickLineItems.map((l: any) => ({
            action: "ModifyPickRunLineItem",
            id: l.id,
            picked: l.quantity,
          })),
          { action: "FinishPickRun" },
        ],
      }),
    );
    expect(finished).toMatchObject({ status: "CLOSED", version: 4 });
    const ja = await getJob(a.id);
    expect(ja.status).toBe("PICKED");
    expect(pickedOf(ja)).toEqual([
      ["WATER", 1],
      ["K", 1],
    ]);
    await invalidTransition(patchRun(run.id, { version: 4, actions: [{ action: "FinishPickRun" }] }));
    await invalidTransition(patchRun(run.id, { version: 4, actions: [{ action: "CancelPickRun" }] }));
    await invalidTransition(
      api("PATCH", `/api/pickruns/${run.id}/pickjobs`, {
        version: 4,
        actions: [{ action: "RemovePickJobFromPickRun", pickJobRef: a.id }],
      }),
    );

    for (const actions of [[{ action: "Explode" }], [], [{ action: "ModifyPickRunLineItem" }]]) {
      const bad = await patchRun(run.id, { version: 4, actions });
      expect(bad.status, JSON.stringify(actions)).toBe(400);
    }
  });

  it("CancelPickRun via PATCH detaches the jobs, which keep their status; FinishPickRun of an OPEN run is rejected", async () => {
    const a = await job(2, "N");
    const b = await job(1, "O");
    const run = ok(await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id] }), 201);
    await invalidTransition(patchRun(run.id, { version: 1, actions: [{ action: "FinishPickRun" }] }));
    const stale = await patchRun(run.id, { version: 2, actions: [{ action: "CancelPickRun" }] });
    expect(stale.status).toBe(409);
    const canceled = ok(await patchRun(run.id, { version: 1, actions: [{ action: "CancelPickRun" }] }));
    expect(canceled).toMatchObject({ status: "CANCELED", version: 2 });
    for (const j of [a, b]) {
      const now = await getJob(j.id);
      expect(now.pickRunRef).toBeUndefined();
      expect(now.status).toBe("OPEN");
    }
    await invalidTransition(patchRun(run.id, { version: 2, actions: [{ action: "StartPickRun" }] }));
    // The jobs are free again.
    ok(await createRun({ facilityRef: facilityId, pickJobRefs: [a.id, b.id] }), 201);
  });
});
