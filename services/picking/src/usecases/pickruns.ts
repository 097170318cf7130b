/**
 * Pick run use cases. A run change and the changes it implies for its pick jobs (attach, start,
 * picked quantities, detach) happen in ONE transaction: the run domain returns commands for the
 * jobs, and each is applied through the pick job state machine, so a run can never leave a job in a
 * state the job's own rules forbid.
 */

import type { RequestContext } from "@fop/kit/context";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { notFound } from "@fop/kit/errors";
import type { DomainEvent } from "@fop/kit/events/envelope";
import { isUuid } from "@fop/kit/ids";
import { requireCurrentVersion } from "@fop/kit/validation";
import { insertRun, loadJobs, loadRun, updateJob, updateRun } from "../db/rows.ts";
import { applyPickJobAction } from "../domain/lifecycle.ts";
import { pickRunJobRules, rulesOf } from "../domain/picking-config.ts";
import {
  applyPickRunAction,
  applyPickRunPatch,
  createPickRun as create,
  type JobCommand,
  pickRunMoments,
  type RunChange,
  removePickJobFromRun,
} from "../domain/pickrun.ts";
import type { ActionContext, JsonObject, PickJob, PickRun } from "../domain/types.ts";
import { pickJobEvent, pickRunEvent } from "../events/picking.events.ts";
import type { PickingDeps } from "./deps.ts";
import { ruledActionContext, withLoadUnits } from "./pickjobs.ts";

async function requireRun(db: Db, ctx: RequestContext, id: string, forUpdate: boolean) {
  const run = isUuid(id) ? await loadRun(db, ctx.tenant, id, forUpdate) : undefined;
  if (!run) throw notFound("pick run", id);
  return run;
}

/** The run's jobs, locked (in id order) after the run itself, by id. */
async function lockJobs(db: Db, ctx: RequestContext, refs: readonly string[]) {
  return new Map((await loadJobs(db, ctx.tenant, refs.filter(isUuid), true)).map((j) => [j.id, j]));
}

/** The jobs' statuses, which decide what the run's START starts. */
const statuses = (jobs: Map<string, PickJob>) =>
  Object.fromEntries([...jobs].map(([id, j]) => [id, j.status]));

/** Applies the run's job commands to the locked jobs and writes run + jobs + all events. */
/**
 * A change of run `id` at `version` (the caller's transaction `db`): the run and its jobs locked, and
 * the action context for `names`, with the load units those actions need.
 */
async function lockForChange(
  deps: PickingDeps,
  ctx: RequestContext,
  db: Db,
  id: string,
  version: unknown,
  names: readonly unknown[],
) {
  const run = await requireRun(db, ctx, id, true);
  requireCurrentVersion("pick run", run, version);
  const jobs = await lockJobs(db, ctx, run.pickJobRefs);
  const ac = await withLoadUnits(
    deps,
    ctx,
    await ruledActionContext(deps, ctx, db),
    run.pickJobRefs,
    pickRunMoments(run, names),
    "pickRun",
  );
  return { run, jobs, ac };
}

async function commit(
  deps: PickingDeps,
  ctx: RequestContext,
  db: Db,
  change: RunChange,
  isNew: boolean,
  jobs: Map<string, PickJob>,
  ac: ActionContext,
): Promise<PickRun> {
  const changed = new Map<string, PickJob>();
  const events: DomainEvent[] = [];
  const jobAc: ActionContext = { ...ac, rules: pickRunJobRules(rulesOf(ac)) };
  for (const cmd of change.commands as JobCommand[]) {
    const job = changed.get(cmd.pickJobRef) ?? jobs.get(cmd.pickJobRef);
    if (!job) throw notFound("pick job", cmd.pickJobRef);
    const result = applyPickJobAction(job, cmd.action as JsonObject, jobAc);
    const next = result.job;
    changed.set(next.id, next);
    events.push(pickJobEvent(result.event, next));
  }
  for (const job of changed.values()) await updateJob(db, ctx.tenant, job);
  const run = change.run;
  if (isNew) await insertRun(db, ctx.tenant, run);
  else await updateRun(db, ctx.tenant, run);
  await deps.outbox.record(db, ctx, [pickRunEvent(change.event, run), ...events]);
  return run;
}

export async function createPickRun(
  deps: PickingDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<PickRun> {
  const refs = Array.isArray(body.pickJobRefs) ? (body.pickJobRefs as string[]) : [];
  return inTransaction(deps.db, async (db) => {
    const jobs = await lockJobs(db, ctx, refs);
    const ac = await ruledActionContext(deps, ctx, db);
    const change = create(
      {
        facilityRef: String(body.facilityRef ?? ""),
        pickJobRefs: refs,
        pickRunType: body.pickRunType as string | undefined,
        status: body.status as string | undefined,
      },
      [...jobs.values()],
      { ...ac, id: deps.newId() },
    );
    return commit(deps, ctx, db, change, true, jobs, ac);
  });
}

export async function getPickRun(deps: PickingDeps, ctx: RequestContext, id: string): Promise<PickRun> {
  return requireRun(deps.db, ctx, id, false);
}

export async function pickRunAction(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  action: JsonObject,
): Promise<PickRun> {
  return inTransaction(deps.db, async (db) => {
    const { run, jobs, ac } = await lockForChange(deps, ctx, db, id, action.version, [action.name]);
    const change = applyPickRunAction(run, action, ac, statuses(jobs));
    return commit(deps, ctx, db, change, false, jobs, ac);
  });
}

export async function patchPickRun(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  actions: JsonObject[],
): Promise<PickRun> {
  return inTransaction(deps.db, async (db) => {
    const { run, jobs, ac } = await lockForChange(
      deps,
      ctx,
      db,
      id,
      version,
      actions.map((a) => a.action),
    );
    const change = applyPickRunPatch(run, actions, ac, statuses(jobs));
    return commit(deps, ctx, db, change, false, jobs, ac);
  });
}

export async function removePickJob(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  pickJobRef: string,
): Promise<PickRun> {
  return inTransaction(deps.db, async (db) => {
    const run = await requireRun(db, ctx, id, true);
    requireCurrentVersion("pick run", run, version);
    const jobs = await lockJobs(db, ctx, run.pickJobRefs);
    const ac = await ruledActionContext(deps, ctx, db);
    return commit(deps, ctx, db, removePickJobFromRun(run, pickJobRef, ac), false, jobs, ac);
  });
}
