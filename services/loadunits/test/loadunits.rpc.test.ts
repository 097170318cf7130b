/**
 * LoadUnitsService over a real Connect client, Postgres and JetStream: ListLoadUnitsOfPickJobs,
 * BatchGetStacks, and the pick job projection kept by picking's events.
 */
import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { query } from "@fop/kit/db/sql";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { countingDeps, expectTooManyIds, rpcContext, testCredentials } from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { consumedUpTo, publishEvent } from "@fop/kit/testing/stream";
import { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PICK_JOBS_CONSUMER } from "../src/events/pickjobs.consumer.ts";
import { loadUnitsService } from "../src/service.ts";
import type { LoadUnitsDeps } from "../src/usecases/deps.ts";
import { listLoadUnitsOfPickJobs } from "../src/usecases/loadunits.ts";
import { batchGetStacks } from "../src/usecases/stacks.ts";

const suffix = randomBytes(4).toString("hex");
const STREAM = `LOADUNITS_T_${suffix.toUpperCase()}`;
const FACILITY = newId();
let db: TestDatabase;
let svc: RunningService<LoadUnitsDeps>;
const ctx = rpcContext;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [loadUnitsService]);
  // Picking and the catalog are not what these tests are about: every pick job exists, in every
  // tenant, in one facility, and so does every facility.
  const mod = {
    ...loadUnitsService,
    createDeps: async (...args: Parameters<typeof loadUnitsService.createDeps>) => ({
      ...(await loadUnitsService.createDeps(...args)),
      pickJobs: {
        fetch: async (_: unknown, id: string) => ({ id, facilityRef: FACILITY, status: "OPEN", version: 1 }),
      },
      facilities: { exists: async () => true },
    }),
  };
  svc = await startTestService(mod, {
    DATABASE_URL: db.serviceUrl("loadunits"),
    EVENTS_STREAM: STREAM,
    EVENTS_SUBJECT_PREFIX: `l${suffix}.events`,
  });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.base.nats.jsm.streams.delete(STREAM).catch(() => {});
  await svc?.close();
  await db?.drop();
});

const client = () => createRpcClient(LoadUnitsService, svc.rpcUrl, testCredentials);
const unitOf = async (tenant: string, pickJobRefs: string[]) =>
  (await client().createLoadUnits({ loadUnits: [{ pickJobRefs }] }, callOptions(ctx(tenant)))).loadUnits[0]!
    .id;
const ofJobs = (tenant: string, pickJobIds: string[]) =>
  client().listLoadUnitsOfPickJobs({ pickJobIds }, callOptions(ctx(tenant)));
const stacksOf = (tenant: string, ids: string[]) =>
  client().batchGetStacks({ ids }, callOptions(ctx(tenant)));
const doc = (m: { documentJson: Uint8Array }) =>
  JSON.parse(Buffer.from(m.documentJson).toString("utf8")) as { id: string; pickJobRefs: string[] };
const counting = () => countingDeps(svc.deps);

describe("ListLoadUnitsOfPickJobs", () => {
  it("answers the load units of several jobs in one call, AVAILABLE and OBSOLETE, each once, oldest first", async () => {
    const [a, b, c] = [newId(), newId(), newId()];
    const ofA = await unitOf("t1", [a]);
    const ofB = await unitOf("t1", [b]);
    const ofBoth = await unitOf("t1", [b, a]);
    const ofC = await unitOf("t1", [c]);
    const obsolete = await unitOf("t1", [a]);
    await client().deleteLoadUnit({ id: obsolete }, callOptions(ctx("t1")));
    // Another tenant's load units of the same pick job ids never show.
    await unitOf("t2", [a]);
    const { loadUnits } = await ofJobs("t1", [a, "nope", b, newId(), a.toUpperCase(), b]);
    expect(loadUnits.map((u) => u.id)).toEqual([ofA, ofB, ofBoth, obsolete]);
    expect(loadUnits.map((u) => u.status)).toEqual(["AVAILABLE", "AVAILABLE", "AVAILABLE", "OBSOLETE"]);
    expect(doc(loadUnits[2]!).pickJobRefs).toEqual([b, a]);
    // As ListPickJobLoadUnits and GetLoadUnit answer them.
    const single = await client().listPickJobLoadUnits({ pickJobId: a }, callOptions(ctx("t1")));
    expect(single.loadUnits.map((u) => u.id)).toEqual([ofA, ofBoth, obsolete]);
    expect(single.loadUnits.map(doc)).toEqual(loadUnits.filter((u) => u.id !== ofB).map(doc));
    const got = (await client().getLoadUnit({ id: ofA }, callOptions(ctx("t1")))).loadUnit;
    expect(loadUnits[0]).toEqual(got);
    expect((await ofJobs("t1", [c])).loadUnits.map((u) => u.id)).toEqual([ofC]);
    expect((await ofJobs("t2", [b, c])).loadUnits).toEqual([]);
  });

  it("answers nothing for no ids and rejects more than 500", async () => {
    expect((await ofJobs("t1", [])).loadUnits).toEqual([]);
    expect((await ofJobs("t1", Array.from({ length: 500 }, newId))).loadUnits).toEqual([]);
    await expectTooManyIds(ofJobs("t1", Array.from({ length: 501 }, newId)), "pick_job_ids");
  });

  it("reads all jobs with one statement, and none without ids", async () => {
    const { deps, statements } = counting();
    const [a, b] = [newId(), newId()];
    await unitOf("t3", [a]);
    await unitOf("t3", [b]);
    expect(await listLoadUnitsOfPickJobs(deps, ctx("t3"), [a, b, newId()])).toHaveLength(2);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).toMatch(/tenant_id = \$1 and pick_job_refs && \$2::text\[\]/);
    expect(await listLoadUnitsOfPickJobs(deps, ctx("t3"), ["nope"])).toEqual([]);
    expect(await listLoadUnitsOfPickJobs(deps, ctx("t3"), [])).toEqual([]);
    expect(statements).toHaveLength(1);
  });
});

describe("BatchGetStacks", () => {
  const stack = async (tenant: string) =>
    (
      await client().createStack(
        { body: { facilityRefs: [FACILITY], processRefs: [] } },
        callOptions(ctx(tenant)),
      )
    ).stack!.id;

  it("answers the caller's stacks among the ids, each once, as GetStack does; unknown, malformed and other tenants' ids are left out", async () => {
    const [a, b, c] = [await stack("t1"), await stack("t1"), await stack("t1")];
    const foreign = await stack("t2");
    const { stacks } = await stacksOf("t1", [c, "nope", a, foreign, newId(), c, a.toUpperCase()]);
    expect(stacks.map((s) => s.id)).toEqual([a, c]);
    expect(stacks[0]).toEqual((await client().getStack({ id: a }, callOptions(ctx("t1")))).stack);
    expect(doc(stacks[1]!).id).toBe(c);
    expect((await stacksOf("t1", [b])).stacks.map((s) => s.id)).toEqual([b]);
    expect((await stacksOf("t2", [a, b, c, foreign])).stacks.map((s) => s.id)).toEqual([foreign]);
  });

  it("answers nothing for no ids and rejects more than 500", async () => {
    expect((await stacksOf("t1", [])).stacks).toEqual([]);
    expect((await stacksOf("t1", Array.from({ length: 500 }, newId))).stacks).toEqual([]);
    await expectTooManyIds(stacksOf("t1", Array.from({ length: 501 }, newId)), "ids");
  });

  it("reads all ids with one statement, and none without ids", async () => {
    const { deps, statements } = counting();
    const ids = [await stack("t3"), await stack("t3"), newId()];
    expect(await batchGetStacks(deps, ctx("t3"), ids)).toHaveLength(2);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).toMatch(/tenant_id = \$1 and id = any\(\$2::uuid\[\]\)/);
    expect(await batchGetStacks(deps, ctx("t3"), [])).toEqual([]);
    expect(statements).toHaveLength(1);
  });
});

describe("the pick job projection (loadunits-pickjobs)", () => {
  /** Publishes a PICK_JOB_* event as picking does; `facilityRef` undefined: one from before PickJob had it. */
  const pickJobEvent = (tenant: string, id: string, version: number, status: string, facilityRef?: string) =>
    publishEvent(svc.base.nats, `l${suffix}.events`, tenant, {
      type: version === 1 ? "PICK_JOB_CREATED" : "PICK_JOB_STARTED",
      entityType: "PICK_JOB",
      entityRef: id,
      entityVersion: version,
      entityCreated: new Date(),
      payload: {
        schema: PickJobSchema,
        message: create(PickJobSchema, {
          id,
          version: BigInt(version),
          status,
          facilityRef,
          // The document says another facility: the projection must not read it.
          documentJson: Buffer.from(JSON.stringify({ id, version, status, facilityRef: "from-the-json" })),
        }),
      },
    });
  const projected = (tenant: string, id: string) =>
    query<{ facility_ref: string; status: string; version: number }>(svc.deps.db, {
      text: "select facility_ref, status, version from loadunits.pick_job_ref where tenant_id = $1 and id = $2",
      params: [tenant, id],
    }).then((rows) => rows[0]);

  it("takes the facility from the typed facility_ref; an event without it moves a known job and adds no unknown one", async () => {
    const [known, unknown] = [newId(), newId()];
    const facility = newId();
    await pickJobEvent("p1", known, 1, "OPEN", facility);
    await expect
      .poll(() => projected("p1", known), { timeout: 10_000 })
      .toEqual({ facility_ref: facility, status: "OPEN", version: 1 });
    // From before the field: the status and version move, the facility stays.
    await pickJobEvent("p1", known, 2, "IN_PROGRESS");
    await expect
      .poll(() => projected("p1", known), { timeout: 10_000 })
      .toEqual({ facility_ref: facility, status: "IN_PROGRESS", version: 2 });
    // A job the projection has not seen, from before the field: not added (GetPickJob answers it on first use).
    const { seq } = await pickJobEvent("p1", unknown, 1, "OPEN");
    await consumedUpTo(svc.base.nats, STREAM, PICK_JOBS_CONSUMER, seq);
    expect(await projected("p1", unknown)).toBeUndefined();
  });
});
