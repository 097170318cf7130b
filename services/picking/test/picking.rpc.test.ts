/** PickingService over a real Connect client, Postgres and JetStream: the PickJob envelope, BatchGetPickJobs. */
import { randomBytes } from "node:crypto";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { countingDeps, expectTooManyIds, rpcContext, testCredentials } from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { streamEvents } from "@fop/kit/testing/stream";
import { PickingService, PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pickingService } from "../src/service.ts";
import type { PickingDeps } from "../src/usecases/deps.ts";
import { readPickJobs } from "../src/usecases/pickjobs.ts";

const suffix = randomBytes(4).toString("hex");
let db: TestDatabase;
let svc: RunningService<PickingDeps>;
const ctx = rpcContext;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [pickingService]);
  // Every facility exists: the catalog is not what these tests are about.
  const mod = {
    ...pickingService,
    createDeps: async (...args: Parameters<typeof pickingService.createDeps>) => ({
      ...(await pickingService.createDeps(...args)),
      facilities: { exists: async () => true, address: async () => undefined },
    }),
  };
  svc = await startTestService(mod, {
    DATABASE_URL: db.serviceUrl("picking"),
    EVENTS_STREAM: `PICKING_T_${suffix.toUpperCase()}`,
    EVENTS_SUBJECT_PREFIX: `p${suffix}.events`,
    DOCUMENT_RENDER_WORKERS: "1",
  });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.base.nats.jsm.streams.delete(`PICKING_T_${suffix.toUpperCase()}`).catch(() => {});
  await svc?.close();
  await db?.drop();
});

const client = () => createRpcClient(PickingService, svc.rpcUrl, testCredentials);
const createJob = async (tenant: string, tenantOrderId: string) =>
  (
    await client().createPickJob(
      {
        body: {
          facilityRef: newId(),
          tenantOrderId,
          orderDate: "2026-03-01T09:00:00.000Z",
          pickLineItems: [{ article: { tenantArticleId: "A", title: "Apple" }, quantity: 2 }],
        },
      },
      callOptions(ctx(tenant)),
    )
  ).pickJob!.id;
const batch = (tenant: string, ids: string[]) => client().batchGetPickJobs({ ids }, callOptions(ctx(tenant)));
const doc = (j: { documentJson: Uint8Array }) =>
  JSON.parse(Buffer.from(j.documentJson).toString("utf8")) as { id: string; tenantOrderId: string };

describe("the PickJob message", () => {
  it("carries the job's facility as the typed facility_ref: in the answers and in the events other services consume", async () => {
    const facilityRef = newId();
    const body = {
      facilityRef,
      orderDate: "2026-03-01T09:00:00.000Z",
      pickLineItems: [{ article: { tenantArticleId: "A", title: "Apple" }, quantity: 1 }],
    };
    const created = (await client().createPickJob({ body }, callOptions(ctx("f1")))).pickJob!;
    expect(created.facilityRef).toBe(facilityRef);
    const { id } = created;
    expect((await client().getPickJob({ id }, callOptions(ctx("f1")))).pickJob!.facilityRef).toBe(
      facilityRef,
    );
    expect((await batch("f1", [id])).pickJobs[0]!.facilityRef).toBe(facilityRef);
    const started = (
      await client().pickJobAction({ id, action: { name: "START", version: 1 } }, callOptions(ctx("f1")))
    ).pickJob!;
    expect(started.facilityRef).toBe(facilityRef);
    const published = async () =>
      (await streamEvents(svc.base.nats, `PICKING_T_${suffix.toUpperCase()}`))
        .filter((e) => e.entityRef === id)
        .map((e) => [e.type, anyUnpack(e.payload!, PickJobSchema)?.facilityRef]);
    await expect.poll(published, { timeout: 10_000 }).toEqual([
      ["PICK_JOB_CREATED", facilityRef],
      ["PICK_JOB_STARTED", facilityRef],
    ]);
  });
});

describe("BatchGetPickJobs", () => {
  it("answers the caller's jobs among the ids, each once, as GetPickJob does; unknown, malformed and other tenants' ids are left out", async () => {
    const a = await createJob("t1", "A");
    const b = await createJob("t1", "B");
    const c = await createJob("t1", "C");
    const foreign = await createJob("t2", "F");
    const { pickJobs } = await batch("t1", [c, "nope", a, foreign, newId(), c, a.toUpperCase(), ""]);
    expect(pickJobs.map((j) => [j.id, doc(j).tenantOrderId])).toEqual([
      [a, "A"],
      [c, "C"],
    ]);
    const single = (await client().getPickJob({ id: a }, callOptions(ctx("t1")))).pickJob!;
    expect(pickJobs[0]).toEqual(single);
    expect(pickJobs[0]).toMatchObject({ version: 1n, status: "OPEN" });
    expect(doc(pickJobs[0]!).id).toBe(a);
    expect((await batch("t1", [b])).pickJobs.map((j) => j.id)).toEqual([b]);
    expect((await batch("t2", [a, b, c, foreign])).pickJobs.map((j) => j.id)).toEqual([foreign]);
  });

  it("answers nothing for no ids", async () => {
    expect((await batch("t1", [])).pickJobs).toEqual([]);
  });

  it("takes 500 ids and rejects 501 as InvalidArgument", async () => {
    expect((await batch("t1", Array.from({ length: 500 }, newId))).pickJobs).toEqual([]);
    await expectTooManyIds(batch("t1", Array.from({ length: 501 }, newId)), "ids");
  });

  it("reads all ids with one statement, and none without ids", async () => {
    const { deps, statements } = countingDeps(svc.deps);
    const ids = [await createJob("t3", "X"), await createJob("t3", "Y"), newId()];
    expect(await readPickJobs(deps, ctx("t3"), ids)).toHaveLength(2);
    expect(statements).toHaveLength(1);
    expect(statements[0]!.text).toMatch(/tenant_id = \$1 and id = any\(\$2::uuid\[\]\)/);
    expect(await readPickJobs(deps, ctx("t3"), ["nope"])).toEqual([]);
    expect(await readPickJobs(deps, ctx("t3"), [])).toEqual([]);
    expect(statements).toHaveLength(1);
  });
});

describe("SearchPickJobs", () => {
  it("answers one cursor per job only when asked", async () => {
    for (const id of ["S1", "S2", "S3"]) await createJob("t4", id);
    const search = (withCursors: boolean, after = "") =>
      client().searchPickJobs({ search: { withCursors, after } }, callOptions(ctx("t4")));
    expect((await search(false)).pageInfo?.cursors).toEqual([]);
    const all = await search(true);
    const cursors = all.pageInfo!.cursors;
    expect(cursors).toHaveLength(3);
    expect([cursors[0], cursors[2]]).toEqual([all.pageInfo!.startCursor, all.pageInfo!.endCursor]);
    const after = await search(true, cursors[1]);
    expect(after.pickJobsJson.map((j) => doc({ documentJson: j }).tenantOrderId)).toEqual(["S3"]);
    expect(after.pageInfo!.cursors).toEqual(cursors.slice(2));
  });
});
