/** LoadUnitsService over a real Connect client and Postgres: ListLoadUnitsOfPickJobs, BatchGetStacks. */
import { randomBytes } from "node:crypto";
import { newId } from "@fop/kit/ids";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { countingDeps, expectTooManyIds, rpcContext, testCredentials } from "@fop/kit/testing/rpc";
import { startTestService } from "@fop/kit/testing/service";
import { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
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
    (await client().createStack({ body: { facilityRefs: [FACILITY] } }, callOptions(ctx(tenant)))).stack!.id;

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
