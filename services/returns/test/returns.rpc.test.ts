/**
 * ReturnsService over a real Connect client, Postgres and JetStream: item return jobs (create, get,
 * list, actions), item returns and their lines, reasons, the return and handover configurations.
 * Each write is checked in its answer, in what a later read gives, and in the event it emits.
 */
import { randomBytes } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { query } from "@fop/kit/db/sql";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import {
  expectInvalid,
  rpcContext,
  rpcFailure,
  testCallerToken,
  testCredentials,
} from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { expectEntityEvents } from "@fop/kit/testing/stream";
import { ReasonAction, ReturnLineItemKind, ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { returnsService } from "../src/service.ts";
import type { ReturnsDeps } from "../src/usecases/deps.ts";

const suffix = randomBytes(4).toString("hex");
const STREAM = `RETURNS_T_${suffix.toUpperCase()}`;
/** The facilities the catalog knows (in every tenant); any other id is unknown. */
const FACILITY = newId();
const RETURN_FACILITY = newId();
const KNOWN = new Set([FACILITY, RETURN_FACILITY]);
let db: TestDatabase;
let svc: RunningService<ReturnsDeps>;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [returnsService]);
  // The catalog and carriers services are not what these tests are about.
  const mod = {
    ...returnsService,
    createDeps: async (...args: Parameters<typeof returnsService.createDeps>) =>
      ({
        ...(await returnsService.createDeps(...args)),
        facilities: {
          exists: async (_ctx, id) => KNOWN.has(id),
          address: async () => ({ street: "Hauptstr.", city: "Köln", postalCode: "50667", country: "DE" }),
        },
        carriers: { exists: async () => true },
      }) satisfies ReturnsDeps,
  };
  svc = await startTestService(mod, {
    DATABASE_URL: db.serviceUrl("returns"),
    EVENTS_STREAM: STREAM,
    EVENTS_SUBJECT_PREFIX: `r${suffix}.events`,
  });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.base.nats.jsm.streams.delete(STREAM).catch(() => {});
  await svc?.close();
  await db?.drop();
});

const client = () => createRpcClient(ReturnsService, svc.rpcUrl, testCredentials);
const opts = (tenant: string) => callOptions(rpcContext(tenant));
const docOf = (m: { documentJson: Uint8Array } | undefined) =>
  JSON.parse(Buffer.from(m!.documentJson).toString("utf8")) as Record<string, any>;
const parse = (b: Uint8Array) => JSON.parse(Buffer.from(b).toString("utf8")) as Record<string, any>;
/** The events of `ref` the relay published, polled until they are `expected`. */
const expectEvents = (ref: string, expected: [string, number][]) =>
  expectEntityEvents(svc.base.nats, STREAM, ref, expected);
/** The job as stored: the row's derived columns and its document. */
const storedJob = async (tenant: string, id: string) =>
  (
    await query<{ status: string; version: number; doc: Record<string, any> }>(svc.deps.db, {
      text: "select status, version, doc from returns.item_return_job where tenant_id = $1 and id = $2",
      params: [tenant, id],
    })
  )[0];

const jobBody = (over: JsonObject = {}): JsonObject => ({
  status: "OPEN",
  tenantOrderId: "O-1",
  originFacilityRefs: [FACILITY, FACILITY],
  consumerAddresses: [
    {
      firstName: "Ada",
      lastName: "Lovelace",
      street: "Domkloster",
      houseNumber: "4",
      postalCode: "50667",
      city: "Köln",
      country: "DE",
    },
  ],
  returnableLineItems: [
    { article: { tenantArticleId: "A-1", title: "Shirt" }, delivered: 2 },
    { article: { tenantArticleId: "A-2", title: "Socks" }, delivered: 1 },
  ],
  notReturnableLineItems: [{ article: { tenantArticleId: "A-3", title: "Voucher" }, delivered: 1 }],
  ...over,
});
const createJob = async (tenant: string, over: JsonObject = {}) =>
  (await client().createItemReturnJob({ body: jobBody(over) }, opts(tenant))).itemReturnJob!;
const jobAction = (tenant: string, id: string, action: JsonObject) =>
  client().itemReturnJobAction({ id, action }, opts(tenant));

describe("item return jobs", () => {
  it("CreateItemReturnJob answers the job at version 1, stores it and emits ITEM_RETURN_JOB_CREATED; GetItemReturnJob reads it", async () => {
    const job = await createJob("j1");
    expect(job).toMatchObject({ version: 1n, status: "OPEN" });
    const doc = docOf(job);
    expect(doc).toMatchObject({
      id: job.id,
      version: 1,
      status: "OPEN",
      tenantOrderId: "O-1",
      originFacilityRefs: [FACILITY],
      itemReturns: [],
      returnableLineItems: [
        { article: { tenantArticleId: "A-1" }, delivered: 2, returnable: 2, returned: 0 },
        { article: { tenantArticleId: "A-2" }, delivered: 1, returnable: 1, returned: 0 },
      ],
      notReturnableLineItems: [{ delivered: 1, returnable: 0, returned: 0 }],
    });
    expect(doc.shortId).toMatch(/^[A-Z0-9]{6}$/);
    expect(doc.returnableLineItems[0].id).toMatch(/^[0-9a-f-]{36}$/);

    const got = (await client().getItemReturnJob({ id: job.id }, opts("j1"))).itemReturnJob!;
    expect(got).toMatchObject({ id: job.id, version: 1n, status: "OPEN" });
    expect(docOf(got)).toEqual(doc);
    expect(await storedJob("j1", job.id)).toMatchObject({ status: "OPEN", version: 1, doc });
    await expectEvents(job.id, [["ITEM_RETURN_JOB_CREATED", 1]]);
  });

  it("refuses bad input with the field named, and writes nothing", async () => {
    // The body's REST schema refuses the shapes (VALIDATION_FAILED, as POST /api/itemreturnjobs
    // does); the domain refuses what only it knows (an unknown facility).
    const refused = [
      [jobBody({ status: "DONE" }), "VALIDATION_FAILED", "/status"],
      [jobBody({ consumerAddresses: [] }), "VALIDATION_FAILED", "/consumerAddresses"],
      [jobBody({ originFacilityRefs: [FACILITY, newId()] }), "FACILITY_NOT_FOUND", "/originFacilityRefs/1"],
      [
        jobBody({ returnableLineItems: [{ article: { tenantArticleId: "A" }, delivered: 1 }] }),
        "VALIDATION_FAILED",
        "/returnableLineItems/0/article/title",
      ],
      [
        jobBody({ returnableLineItems: [{ article: { tenantArticleId: "A", title: "T" }, delivered: 0 }] }),
        "VALIDATION_FAILED",
        "/returnableLineItems/0/delivered",
      ],
    ] as const;
    for (const [body, code, field] of refused) {
      await expectInvalid(client().createItemReturnJob({ body }, opts("j2")), code, field);
    }
    expect(
      await query(svc.deps.db, {
        text: "select 1 from returns.item_return_job where tenant_id = $1",
        params: ["j2"],
      }),
    ).toEqual([]);
  });

  it("GetItemReturnJob: unknown, malformed and another tenant's ids are NOT_FOUND", async () => {
    const job = await createJob("j3");
    for (const [tenant, id] of [
      ["j3", newId()],
      ["j3", "nope"],
      ["j4", job.id],
    ] as const) {
      expect(await rpcFailure(client().getItemReturnJob({ id }, opts(tenant)))).toMatchObject({
        code: Code.NotFound,
        detail: { code: "ITEM_RETURN_JOB_NOT_FOUND" },
      });
    }
  });

  it("ListItemReturnJobs pages the tenant's jobs in creation order with their total and filters", async () => {
    const a = await createJob("j5");
    const b = await createJob("j5", { status: "IN_PROGRESS", originFacilityRefs: [RETURN_FACILITY] });
    const c = await createJob("j5");
    await createJob("j6");
    const list = (filters: JsonObject = {}, page: { size: number; startAfterId?: string } = { size: 25 }) =>
      client().listItemReturnJobs({ page, filters }, opts("j5"));
    const all = await list();
    expect(all.itemReturnJobs.map((j) => j.id)).toEqual([a.id, b.id, c.id]);
    expect(all.total).toBe(3n);
    expect(docOf(all.itemReturnJobs[1])).toEqual(docOf(b));
    const page = await list({}, { size: 1, startAfterId: a.id });
    expect(page.itemReturnJobs.map((j) => j.id)).toEqual([b.id]);
    expect(page.total).toBe(3n);
    expect((await list({ itemReturnJobStatus: ["IN_PROGRESS"] })).itemReturnJobs.map((j) => j.id)).toEqual([
      b.id,
    ]);
    expect((await list({ facilityId: FACILITY })).itemReturnJobs.map((j) => j.id)).toEqual([a.id, c.id]);
    expect((await list({ tenantOrderId: "O-1", itemReturnJobStatus: ["OPEN"] })).total).toBe(2n);
    expect(await rpcFailure(list({}, { size: 1, startAfterId: "nope" }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "INVALID_ID", field: "startAfterId" },
    });
    expect(await rpcFailure(list({ itemReturnJobStatus: ["DONE"] }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "INVALID_FILTER", field: "itemReturnJobStatus" },
    });
  });

  it("ItemReturnJobAction: status and line item actions on the current version, each an event; stale, missing and impossible ones refused", async () => {
    const job = await createJob("j7");
    const [first, second] = docOf(job).returnableLineItems as { id: string }[];
    const started = (await jobAction("j7", job.id, { name: "StartItemReturnJob", version: 1 }))
      .itemReturnJob!;
    expect(started).toMatchObject({ version: 2n, status: "IN_PROGRESS" });

    expect(
      await rpcFailure(jobAction("j7", job.id, { name: "FinishItemReturnJob", version: 1 })),
    ).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 1n, version: 2n },
    });
    expect(await rpcFailure(jobAction("j7", job.id, { name: "FinishItemReturnJob" }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/version" },
    });
    expect(
      await rpcFailure(jobAction("j7", job.id, { name: "RestartItemReturnJob", version: 2 })),
    ).toMatchObject({
      code: Code.FailedPrecondition,
      detail: { code: "INVALID_TRANSITION" },
    });
    expect(
      await rpcFailure(
        jobAction("j7", job.id, {
          name: "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB",
          version: 2,
          lineItemIds: [first!.id, newId()],
        }),
      ),
    ).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "LINE_ITEM_NOT_FOUND", field: "/lineItemIds/1" },
    });
    expect(
      await rpcFailure(jobAction("j7", newId(), { name: "StartItemReturnJob", version: 1 })),
    ).toMatchObject({
      code: Code.NotFound,
    });

    const moved = docOf(
      (
        await jobAction("j7", job.id, {
          name: "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB",
          version: 2,
          lineItemIds: [second!.id],
        })
      ).itemReturnJob,
    );
    expect(moved.version).toBe(3);
    expect(moved.returnableLineItems.map((l: { id: string }) => l.id)).toEqual([first!.id]);
    expect(moved.notReturnableLineItems.at(-1)).toMatchObject({ id: second!.id, returnable: 0 });
    const finished = (await jobAction("j7", job.id, { name: "FinishItemReturnJob", version: 3 }))
      .itemReturnJob!;
    expect(finished).toMatchObject({ version: 4n, status: "FINISHED" });
    expect(await storedJob("j7", job.id)).toMatchObject({ status: "FINISHED", version: 4 });
    await expectEvents(job.id, [
      ["ITEM_RETURN_JOB_CREATED", 1],
      ["ITEM_RETURN_JOB_STARTED", 2],
      ["ITEM_RETURN_JOB_LINE_ITEMS_CHANGED", 3],
      ["ITEM_RETURN_JOB_FINISHED", 4],
    ]);
  });
});

describe("item returns", () => {
  const reason = { reasonLocalized: { en_US: "Too small", de_DE: "Zu klein" } };
  async function jobWithReturn(tenant: string) {
    const job = await createJob(tenant);
    const [shirt] = docOf(job).returnableLineItems as { id: string }[];
    const [voucher] = docOf(job).notReturnableLineItems as { id: string }[];
    const added = (
      await client().addItemReturn(
        {
          itemReturnJobId: job.id,
          body: {
            itemReturnJobVersion: 1,
            itemReturnForCreation: {
              status: "OPEN",
              returnFacilityRef: RETURN_FACILITY,
              returnedLineItems: [
                { itemReturnJobLineItemRef: shirt!.id, status: "OPEN", reasons: [reason] },
                { itemReturnJobLineItemRef: shirt!.id, status: "OPEN" },
              ],
              returnedNotReturnableLineItems: [{ itemReturnJobLineItemRef: voucher!.id, status: "OPEN" }],
            },
          },
        },
        opts(tenant),
      )
    ).itemReturnJob!;
    return { job, added, shirt: shirt!, itemReturn: docOf(added).itemReturns[0] as Record<string, any> };
  }

  it("AddItemReturn adds it to the job (version + 1, quantities recounted); List/GetItemReturn read it", async () => {
    const { job, added, shirt, itemReturn } = await jobWithReturn("r1");
    expect(added.version).toBe(2n);
    const doc = docOf(added);
    expect(doc.returnableLineItems[0]).toMatchObject({
      id: shirt.id,
      delivered: 2,
      returned: 2,
      returnable: 0,
    });
    expect(itemReturn).toMatchObject({
      status: "OPEN",
      returnFacilityRef: RETURN_FACILITY,
      tenantOrderId: "O-1",
      returnedLineItems: [
        {
          itemReturnJobLineItemRefs: [shirt.id],
          tenantArticleId: "A-1",
          status: "OPEN",
          reasons: [{ reason: "Too small" }],
        },
        { status: "OPEN" },
      ],
      returnedNotReturnableLineItems: [{ tenantArticleId: "A-3" }],
    });
    const listed = await client().listItemReturns({ itemReturnJobId: job.id }, opts("r1"));
    expect(listed.itemReturnsJson.map(parse)).toEqual([itemReturn]);
    const got = await client().getItemReturn({ itemReturnJobId: job.id, id: itemReturn.id }, opts("r1"));
    expect(parse(got.itemReturnJson)).toEqual(itemReturn);
    expect((await storedJob("r1", job.id))!.doc.itemReturns).toEqual([itemReturn]);
    expect(
      await rpcFailure(client().getItemReturn({ itemReturnJobId: job.id, id: newId() }, opts("r1"))),
    ).toMatchObject({
      code: Code.NotFound,
      detail: { code: "ITEM_RETURN_NOT_FOUND" },
    });
    await expectEvents(job.id, [
      ["ITEM_RETURN_JOB_CREATED", 1],
      ["ITEM_RETURN_ADDED", 2],
    ]);
  });

  it("AddItemReturn refuses a stale version, an unknown facility and a line naming no job line", async () => {
    const job = await createJob("r2");
    const [shirt] = docOf(job).returnableLineItems as { id: string }[];
    const add = (body: JsonObject, tenant = "r2", id = job.id) =>
      client().addItemReturn({ itemReturnJobId: id, body }, opts(tenant));
    const creation = (over: JsonObject = {}) => ({
      status: "OPEN",
      returnFacilityRef: RETURN_FACILITY,
      returnedLineItems: [{ itemReturnJobLineItemRef: shirt!.id, status: "OPEN" }],
      ...over,
    });
    expect(
      await rpcFailure(add({ itemReturnJobVersion: 2, itemReturnForCreation: creation() })),
    ).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 2n, version: 1n },
    });
    expect(await rpcFailure(add({ itemReturnForCreation: creation() }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/itemReturnJobVersion" },
    });
    expect(
      await rpcFailure(
        add({ itemReturnJobVersion: 1, itemReturnForCreation: creation({ returnFacilityRef: newId() }) }),
      ),
    ).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "FACILITY_NOT_FOUND", field: "/itemReturnForCreation/returnFacilityRef" },
    });
    expect(
      await rpcFailure(
        add({
          itemReturnJobVersion: 1,
          itemReturnForCreation: creation({
            returnedLineItems: [{ itemReturnJobLineItemRef: newId(), status: "OPEN" }],
          }),
        }),
      ),
    ).toMatchObject({
      code: Code.InvalidArgument,
      detail: {
        code: "LINE_ITEM_NOT_FOUND",
        field: "/itemReturnForCreation/returnedLineItems/0/itemReturnJobLineItemRef",
      },
    });
    // Another tenant's job is not found, whatever the facility.
    expect(
      await rpcFailure(add({ itemReturnJobVersion: 1, itemReturnForCreation: creation() }, "r3")),
    ).toMatchObject({
      code: Code.NotFound,
    });
    expect((await storedJob("r2", job.id))!.version).toBe(1);
  });

  it("ItemReturnAction and PatchReturnLineItem move the job's version; closing the last line emits REFUND_TRIGGERED once", async () => {
    const { job, itemReturn } = await jobWithReturn("r4");
    const started = await client().itemReturnAction(
      {
        itemReturnJobId: job.id,
        id: itemReturn.id,
        action: { name: "StartItemReturn", itemReturnJobVersion: 2 },
      },
      opts("r4"),
    );
    expect(docOf(started.itemReturnJob).itemReturns[0].status).toBe("IN_PROGRESS");
    expect(
      await rpcFailure(
        client().itemReturnAction(
          {
            itemReturnJobId: job.id,
            id: itemReturn.id,
            action: { name: "OpenItemReturn", itemReturnJobVersion: 3 },
          },
          opts("r4"),
        ),
      ),
    ).toMatchObject({ code: Code.FailedPrecondition, detail: { code: "INVALID_TRANSITION" } });

    const patch = (kind: ReturnLineItemKind, id: string, body: JsonObject) =>
      client().patchReturnLineItem(
        { itemReturnJobId: job.id, itemReturnId: itemReturn.id, kind, id, body },
        opts("r4"),
      );
    const [l1, l2] = itemReturn.returnedLineItems as { id: string }[];
    const [n1] = itemReturn.returnedNotReturnableLineItems as { id: string }[];
    const accepted = await patch(ReturnLineItemKind.RETURNED, l1!.id, {
      itemReturnJobVersion: 3,
      status: "ACCEPTED",
      refund: { status: "OPEN", percent: 50 },
    });
    expect(docOf(accepted.itemReturnJob).itemReturns[0].returnedLineItems[0]).toMatchObject({
      status: "ACCEPTED",
      refund: { status: "OPEN", percent: 50 },
    });
    expect(
      await rpcFailure(
        patch(ReturnLineItemKind.RETURNED, l1!.id, { itemReturnJobVersion: 4, status: "OPEN" }),
      ),
    ).toMatchObject({ code: Code.FailedPrecondition });
    expect(
      await rpcFailure(
        patch(ReturnLineItemKind.RETURNED, l2!.id, {
          itemReturnJobVersion: 4,
          refund: { status: "OPEN", percent: 5, price: { value: 1, currency: "EUR" } },
        }),
      ),
    ).toMatchObject({ code: Code.InvalidArgument, detail: { code: "INVALID_REFUND", field: "/refund" } });
    expect(
      await rpcFailure(patch(ReturnLineItemKind.RETURNED, newId(), { itemReturnJobVersion: 4 })),
    ).toMatchObject({
      code: Code.NotFound,
    });
    expect(
      await rpcFailure(patch(ReturnLineItemKind.UNSPECIFIED, l2!.id, { itemReturnJobVersion: 4 })),
    ).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "UNKNOWN_KIND", field: "kind" },
    });
    await patch(ReturnLineItemKind.RETURNED, l2!.id, { itemReturnJobVersion: 4, status: "REJECTED" });
    const last = await patch(ReturnLineItemKind.NOT_RETURNABLE, n1!.id, {
      itemReturnJobVersion: 5,
      status: "CANCELED",
    });
    expect(last.itemReturnJob!.version).toBe(6n);
    expect(
      (
        await query<{ refund_triggered_at: Date | null }>(svc.deps.db, {
          text: "select refund_triggered_at from returns.item_return_job where tenant_id = $1 and id = $2",
          params: ["r4", job.id],
        })
      )[0]!.refund_triggered_at,
    ).toBeInstanceOf(Date);
    await expectEvents(job.id, [
      ["ITEM_RETURN_JOB_CREATED", 1],
      ["ITEM_RETURN_ADDED", 2],
      ["ITEM_RETURN_STARTED", 3],
      ["ITEM_RETURN_LINE_ITEM_UPDATED", 4],
      ["ITEM_RETURN_LINE_ITEM_UPDATED", 5],
      ["ITEM_RETURN_LINE_ITEM_UPDATED", 6],
      ["REFUND_TRIGGERED", 6],
    ]);
  });

  it("FindItemReturns finds item returns across the tenant's jobs", async () => {
    const a = await jobWithReturn("r5");
    const b = await jobWithReturn("r5");
    await jobWithReturn("r6");
    const found = await client().findItemReturns({ page: { size: 25 } }, opts("r5"));
    expect(found.totalCount).toBe(2n);
    expect(found.itemReturnsJson.map(parse).map((r) => [r.id, r.searchPaths])).toEqual([
      [a.itemReturn.id, [`itemReturnJobs/${a.job.id}`]],
      [b.itemReturn.id, [`itemReturnJobs/${b.job.id}`]],
    ]);
  });
});

describe("reasons", () => {
  const body = (reason: string): JsonObject => ({ reason, reasonLocalized: { en_US: reason } });
  const create = (tenant: string, action: ReasonAction, b: JsonObject) =>
    client().createReason({ action, body: b }, opts(tenant));

  it("CreateReason creates once per text and kind; Get, List, Update and Delete follow, each an event", async () => {
    const first = await create("s1", ReasonAction.CANCELATION, body("Damaged"));
    expect(first.created).toBe(true);
    const r = first.reason!;
    expect(r).toMatchObject({ version: 1n, action: ReasonAction.CANCELATION });
    expect(docOf(r)).toMatchObject({ id: r.id, reason: "Damaged", reasonLocalized: { en_US: "Damaged" } });
    // The same text again answers the existing one; in the other kind it is another reason.
    const again = await create("s1", ReasonAction.CANCELATION, body("Damaged"));
    expect(again).toMatchObject({ created: false, reason: { id: r.id } });
    const reroute = await create("s1", ReasonAction.REROUTE, body("Damaged"));
    expect(reroute.created).toBe(true);
    expect(reroute.reason!.id).not.toBe(r.id);

    const get = (id: string, action = ReasonAction.CANCELATION) =>
      client().getReason({ action, id }, opts("s1"));
    // The stored document (jsonb: its own key order) says what the creation answered.
    const got = (await get(r.id)).reason!;
    expect({ ...got, documentJson: docOf(got) }).toEqual({ ...r, documentJson: docOf(r) });
    expect(await rpcFailure(get(r.id, ReasonAction.REROUTE))).toMatchObject({
      code: Code.NotFound,
      detail: { code: "REROUTE_DESCRIPTION_NOT_FOUND" },
    });
    const second = (await create("s1", ReasonAction.CANCELATION, body("Late"))).reason!;
    const list = await client().listReasons(
      { action: ReasonAction.CANCELATION, page: { size: 1 } },
      opts("s1"),
    );
    expect(list).toMatchObject({ hasNextPage: true, total: 2n });
    expect(list.reasons.map((x) => x.id)).toEqual([r.id]);

    const update = (version: number, text: string, id = r.id) =>
      client().updateReason(
        { action: ReasonAction.CANCELATION, id, body: { version, ...body(text) } },
        opts("s1"),
      );
    const updated = (await update(1, "Broken")).reason!;
    expect(updated.version).toBe(2n);
    expect(docOf(updated).reason).toBe("Broken");
    expect(await rpcFailure(update(1, "Broken again"))).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 1n, version: 2n },
    });
    expect(await rpcFailure(update(2, "Late"))).toMatchObject({
      code: Code.AlreadyExists,
      detail: { code: "REASON_EXISTS", field: "/reason" },
    });
    await client().deleteReason({ action: ReasonAction.CANCELATION, id: r.id }, opts("s1"));
    expect(await rpcFailure(get(r.id))).toMatchObject({ code: Code.NotFound });
    expect((await get(second.id)).reason!.id).toBe(second.id);
    await expectEvents(r.id, [
      ["CANCELATION_REASON_CREATED", 1],
      ["CANCELATION_REASON_UPDATED", 2],
      ["CANCELATION_REASON_DELETED", 2],
    ]);
  });

  it("refuses bad input with the field named, an unknown action and another tenant's reason", async () => {
    const refused = [
      [{ reasonLocalized: { en_US: "x" } }, "VALIDATION_FAILED", "/reason"],
      [{ reason: "x" }, "VALIDATION_FAILED", "/reasonLocalized"],
      [{ ...body("x"), id: newId() }, "VALIDATION_FAILED", "/id"],
    ] as const;
    for (const [b, code, field] of refused) {
      await expectInvalid(create("s2", ReasonAction.CANCELATION, b), code, field);
    }
    expect(await rpcFailure(create("s2", ReasonAction.UNSPECIFIED, body("x")))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "UNKNOWN_ACTION", field: "action" },
    });
    const r = (await create("s2", ReasonAction.CANCELATION, body("Mine"))).reason!;
    expect(
      await rpcFailure(client().getReason({ action: ReasonAction.CANCELATION, id: r.id }, opts("s3"))),
    ).toMatchObject({
      code: Code.NotFound,
    });
    expect(
      (await client().listReasons({ action: ReasonAction.CANCELATION, page: { size: 10 } }, opts("s3")))
        .total,
    ).toBe(0n);
  });
});

describe("return and handover configuration", () => {
  it("GetReturnConfiguration is NOT_FOUND until the first Put creates it; later Puts replace it on the current version", async () => {
    expect(await rpcFailure(client().getReturnConfiguration({}, opts("c1")))).toMatchObject({
      code: Code.NotFound,
      detail: { code: "RETURN_CONFIGURATION_NOT_FOUND" },
    });
    const put = (body: JsonObject, tenant = "c1") => client().putReturnConfiguration({ body }, opts(tenant));
    expect(await rpcFailure(put({ version: 0 }))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/active" },
    });
    const first = await put({
      version: 0,
      active: true,
      availableReturnReasons: [
        { reasonLocalized: { en_US: "Too big" } },
        { identifier: "A", reasonLocalized: { de_DE: "Kaputt" } },
      ],
    });
    expect(first.created).toBe(true);
    expect(first.configuration!.version).toBe(1n);
    const stored = docOf(first.configuration);
    expect(stored).toMatchObject({
      version: 1,
      active: true,
      allowTriggerRefund: false,
      availableReturnReasons: [
        { identifier: "1", reason: "Too big" },
        { identifier: "A", reason: "Kaputt" },
      ],
    });
    expect(docOf((await client().getReturnConfiguration({}, opts("c1"))).configuration)).toEqual(stored);
    expect(await rpcFailure(put({ version: 0, active: false }))).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 0n, version: 1n },
    });
    expect(
      await rpcFailure(
        put({
          version: 1,
          active: true,
          availableReturnReasons: [{ identifier: "0", reasonLocalized: { en_US: "x" } }],
        }),
      ),
    ).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/availableReturnReasons/0/identifier" },
    });
    const second = await put({ version: 1, active: false });
    expect(second.created).toBe(false);
    expect(docOf(second.configuration)).toMatchObject({ version: 2, active: false, created: stored.created });
    // Another tenant has none.
    expect((await rpcFailure(client().getReturnConfiguration({}, opts("c2")))).code).toBe(Code.NotFound);
    await expectEvents("c1", [
      ["RETURN_CONFIGURATION_CREATED", 1],
      ["RETURN_CONFIGURATION_UPDATED", 2],
    ]);
  });

  it("PutHandoverConfiguration creates and replaces it; ListRefuseReasons answers its reasons (none without one)", async () => {
    const reasons = async (tenant: string) =>
      JSON.parse(
        Buffer.from((await client().listRefuseReasons({}, opts(tenant))).refusedReasonsJson).toString("utf8"),
      ) as unknown[];
    expect(await reasons("c3")).toEqual([]);
    expect(await rpcFailure(client().getHandoverConfiguration({}, opts("c3")))).toMatchObject({
      code: Code.NotFound,
      detail: { code: "HANDOVER_CONFIGURATION_NOT_FOUND" },
    });
    const put = (body: JsonObject) => client().putHandoverConfiguration({ body }, opts("c3"));
    expect(
      await rpcFailure(put({ version: 0, refusedReasons: [{ refusedReasonLocalized: { en_US: "Wet" } }] })),
    ).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/refusedReasons/0/active" },
    });
    const first = await put({
      version: 0,
      refusedReasons: [{ refusedReasonLocalized: { en_US: "Wet", de_DE: "Nass" }, active: true }],
    });
    expect(first).toMatchObject({ created: true, configuration: { version: 1n } });
    expect(await reasons("c3")).toEqual([
      { refusedReasonLocalized: { en_US: "Wet", de_DE: "Nass" }, active: true, refusedReason: "Wet" },
    ]);
    expect(await rpcFailure(put({ version: 2, refusedReasons: [] }))).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 2n, version: 1n },
    });
    const second = await put({ version: 1, refusedReasons: [] });
    expect(second).toMatchObject({ created: false, configuration: { version: 2n } });
    expect(docOf((await client().getHandoverConfiguration({}, opts("c3"))).configuration)).toMatchObject({
      version: 2,
      refusedReasons: [],
    });
    expect(await reasons("c3")).toEqual([]);
    await expectEvents("c3", [
      ["HANDOVER_CONFIGURATION_CREATED", 1],
      ["HANDOVER_CONFIGURATION_UPDATED", 2],
    ]);
  });
});

describe("a caller token", () => {
  it("acts for the tenants it names only", async () => {
    const job = await createJob("k1");
    const token = await testCallerToken("returns-team", ["k1"]);
    const asCaller = createRpcClient(ReturnsService, svc.rpcUrl, async () => token);
    // The token names one tenant: the call needs no tenant header.
    expect((await asCaller.getItemReturnJob({ id: job.id })).itemReturnJob!.id).toBe(job.id);
    expect(await rpcFailure(asCaller.getItemReturnJob({ id: job.id }, opts("k2")))).toMatchObject({
      code: Code.PermissionDenied,
      detail: { code: "TENANT_NOT_GRANTED" },
    });
  });
});
