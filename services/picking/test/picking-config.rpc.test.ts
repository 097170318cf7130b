/** PickingService over a real Connect client, Postgres and JetStream: the tenant's picking configuration. */
import { randomBytes } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { rpcContext, testCredentials } from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { ErrorDetailSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pickingService } from "../src/service.ts";
import type { PickingDeps } from "../src/usecases/deps.ts";

const suffix = randomBytes(4).toString("hex");
/** The loadunits service as picking sees it: every question recorded; `unavailable` makes it fail. */
const loadUnitCalls: string[][] = [];
let loadUnitsUnavailable = false;
const withLoadUnit = new Set<string>();
let db: TestDatabase;
let svc: RunningService<PickingDeps>;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [pickingService]);
  const mod = {
    ...pickingService,
    createDeps: async (...args: Parameters<typeof pickingService.createDeps>) =>
      ({
        ...(await pickingService.createDeps(...args)),
        facilities: { exists: async () => true, address: async () => undefined },
        loadUnits: {
          async pickJobsWithLoadUnits(_ctx, ids) {
            loadUnitCalls.push([...ids]);
            if (loadUnitsUnavailable) throw new ConnectError("connect ECONNREFUSED", Code.Unavailable);
            return new Set(ids.filter((id) => withLoadUnit.has(id)));
          },
        },
      }) satisfies PickingDeps,
  };
  svc = await startTestService(mod, {
    DATABASE_URL: db.serviceUrl("picking"),
    EVENTS_STREAM: `PICKCFG_T_${suffix.toUpperCase()}`,
    EVENTS_SUBJECT_PREFIX: `pc${suffix}.events`,
    DOCUMENT_RENDER_WORKERS: "1",
  });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.base.nats.jsm.streams.delete(`PICKCFG_T_${suffix.toUpperCase()}`).catch(() => {});
  await svc?.close();
  await db?.drop();
});

const client = () => createRpcClient(PickingService, svc.rpcUrl, testCredentials);
const opts = (tenant: string) => callOptions(rpcContext(tenant));
const docOf = (c: { documentJson: Uint8Array } | undefined) =>
  JSON.parse(Buffer.from(c!.documentJson).toString("utf8")) as Record<string, any>;
const get = async (tenant: string) =>
  (await client().getPickingConfiguration({}, opts(tenant))).configuration!;
const patch = (tenant: string, body: JsonObject) =>
  client().patchPickingConfiguration({ body }, opts(tenant));
const failure = async (call: Promise<unknown>) => {
  const err = ConnectError.from(await call.then(() => undefined).catch((e: unknown) => e));
  return { code: err.code, detail: err.findDetails(ErrorDetailSchema)[0] };
};

describe("GetPickingConfiguration / PatchPickingConfiguration", () => {
  it("answers the defaults (version 0) before the first patch, which creates it on version 0", async () => {
    const before = await get("c1");
    expect(before.version).toBe(0n);
    expect(docOf(before)).toMatchObject({
      version: 0,
      restartPickJobConfiguration: { active: true },
      takeOverPickRunConfiguration: { active: true },
    });
    expect(docOf(before).created).toBeUndefined();

    const first = await patch("c1", { version: 0, restartPickJobConfiguration: { active: false } });
    expect(first.created).toBe(true);
    expect(first.configuration!.version).toBe(1n);
    const stored = docOf(first.configuration);
    expect(stored).toMatchObject({ version: 1, restartPickJobConfiguration: { active: false } });
    expect(stored.created).toEqual(stored.lastModified);
    expect(docOf(await get("c1"))).toEqual(stored);

    const second = await patch("c1", { version: 1, takeOverPickRunConfiguration: { active: false } });
    expect(second.created).toBe(false);
    expect(docOf(second.configuration)).toMatchObject({
      version: 2,
      created: stored.created,
      restartPickJobConfiguration: { active: false },
      takeOverPickRunConfiguration: { active: false },
    });

    // Both events reach the stream (the relay publishes the outbox rows).
    const stream = `PICKCFG_T_${suffix.toUpperCase()}`;
    for (const kind of ["PICKING_CONFIGURATION_CREATED", "PICKING_CONFIGURATION_UPDATED"]) {
      await expect
        .poll(
          () =>
            svc.base.nats.jsm.streams
              .getMessage(stream, { last_by_subj: `pc${suffix}.events.PICKING_CONFIGURATION.${kind}` })
              .then((m) => m?.subject)
              .catch(() => undefined),
          { timeout: 10_000 },
        )
        .toBe(`pc${suffix}.events.PICKING_CONFIGURATION.${kind}`);
    }
  });

  it("a stale or missing version is refused, with the versions named", async () => {
    await patch("c2", { version: 0 });
    expect(await failure(patch("c2", { version: 0 }))).toMatchObject({
      code: Code.Aborted,
      detail: { code: "VERSION_CONFLICT", requestVersion: 0n, version: 1n },
    });
    expect(await failure(patch("c3", { version: 4 }))).toMatchObject({
      code: Code.Aborted,
      detail: { requestVersion: 4n, version: 0n },
    });
    // As REST refuses it: the body's schema requires the version.
    expect(await failure(patch("c3", {}))).toMatchObject({
      code: Code.InvalidArgument,
      detail: { code: "VALIDATION_FAILED", field: "/version" },
    });
    expect((await get("c3")).version).toBe(0n);
  });

  it("of two concurrent first patches one creates, the other is stale", async () => {
    const results = await Promise.allSettled([
      patch("c4", { version: 0, stockUpdateConfiguration: { active: true } }),
      patch("c4", { version: 0, stockUpdateConfiguration: { active: false } }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await get("c4")).version).toBe(1n);
  });

  it("is the tenant's own", async () => {
    await patch("c5", { version: 0, restartPickJobConfiguration: { active: false } });
    expect(docOf(await get("c6"))).toMatchObject({
      version: 0,
      restartPickJobConfiguration: { active: true },
    });
  });

  it("takes effect: RESTART of a pick job is refused once restarting is switched off", async () => {
    const c = client();
    const job = (
      await c.createPickJob(
        {
          body: {
            facilityRef: newId(),
            orderDate: "2026-03-01T09:00:00.000Z",
            pickLineItems: [{ article: { tenantArticleId: "A", title: "Apple" }, quantity: 1 }],
          },
        },
        opts("c7"),
      )
    ).pickJob!;
    await c.pickJobAction({ id: job.id, action: { name: "START", version: 1 } }, opts("c7"));
    await c.pickJobAction({ id: job.id, action: { name: "PAUSE", version: 2 } }, opts("c7"));
    await patch("c7", { version: 0, restartPickJobConfiguration: { active: false } });
    expect(
      await failure(c.pickJobAction({ id: job.id, action: { name: "RESTART", version: 3 } }, opts("c7"))),
    ).toMatchObject({ code: Code.FailedPrecondition, detail: { code: "RESTART_PICK_JOB_DISABLED" } });
    await patch("c7", { version: 1, restartPickJobConfiguration: { active: true } });
    const restarted = await c.pickJobAction(
      { id: job.id, action: { name: "RESTART", version: 3 } },
      opts("c7"),
    );
    expect(restarted.pickJob!.status).toBe("IN_PROGRESS");
  });
});

describe("loadUnitAssignmentConfiguration: the loadunits service is asked only when the configuration requires it", () => {
  const createJob = async (tenant: string) =>
    (
      await client().createPickJob(
        {
          body: {
            facilityRef: newId(),
            orderDate: "2026-03-01T09:00:00.000Z",
            pickLineItems: [{ article: { tenantArticleId: "A", title: "Apple" }, quantity: 2 }],
          },
        },
        opts(tenant),
      )
    ).pickJob!.id;
  const act = (tenant: string, id: string, action: JsonObject) =>
    client().pickJobAction({ id, action }, opts(tenant));

  it("no configuration, INACTIVE, or a setting that does not concern the action: START and CLOSE make no call", async () => {
    loadUnitCalls.length = 0;
    const a = await createJob("lu1");
    await act("lu1", a, { name: "START", version: 1 });
    await act("lu1", a, { name: "CLOSE", version: 2 });
    await patch("lu1", {
      version: 0,
      loadUnitAssignmentConfiguration: { pickJob: "INACTIVE", pickRun: "INACTIVE" },
    });
    const b = await createJob("lu1");
    await act("lu1", b, { name: "START", version: 1 });
    await patch("lu1", {
      version: 1,
      loadUnitAssignmentConfiguration: { pickJob: "AT_END", pickRun: "INACTIVE" },
    });
    await act("lu1", b, { name: "PAUSE", version: 2 });
    await act("lu1", b, { name: "START", version: 3 });
    expect(loadUnitCalls).toEqual([]);
  });

  it("AT_START: one call for the START of an OPEN job; unavailable: the START fails Unavailable and the job stays OPEN", async () => {
    loadUnitCalls.length = 0;
    await patch("lu2", {
      version: 0,
      loadUnitAssignmentConfiguration: { pickJob: "AT_START", pickRun: "INACTIVE" },
    });
    const a = await createJob("lu2");
    expect(await failure(act("lu2", a, { name: "START", version: 1 }))).toMatchObject({
      code: Code.FailedPrecondition,
      detail: { code: "LOAD_UNIT_REQUIRED" },
    });
    expect(loadUnitCalls).toEqual([[a]]);
    loadUnitsUnavailable = true;
    try {
      withLoadUnit.add(a);
      expect((await failure(act("lu2", a, { name: "START", version: 1 }))).code).toBe(Code.Unavailable);
    } finally {
      loadUnitsUnavailable = false;
    }
    const job = docOf((await client().getPickJob({ id: a }, opts("lu2"))).pickJob);
    expect(job).toMatchObject({ status: "OPEN", version: 1 });
    expect(docOf((await act("lu2", a, { name: "START", version: 1 })).pickJob).status).toBe("IN_PROGRESS");
    expect(loadUnitCalls).toHaveLength(3);
  });
});
