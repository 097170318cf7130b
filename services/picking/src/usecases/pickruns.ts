/**
 * Pick run use cases. A run change and the changes it implies for its pick jobs (attach, start,
 * picked quantities, detach) happen in ONE transaction: the run domain returns commands for the
 * jobs, and each is applied through the pick job state machine, so a run can never leave a job in a
 * state the job's own rules forbid.
 */
import type { RequestContext } from "@fop/kit/context";
import { inTransaction, readEm } from "@fop/kit/db/tx";
import { invalid, notFound, versionConflict } from "@fop/kit/errors";
import type { DomainEvent } from "@fop/kit/events/envelope";
import { isUuid } from "@fop/kit/ids";
import type { EntityManager } from "@mikro-orm/postgresql";
import { insertRun, loadJobs, loadRun, updateJob, updateRun } from "../db/rows.ts";
import { applyPickJobAction } from "../domain/lifecycle.ts";
import {
  applyPickRunAction,
  applyPickRunPatch,
  createPickRun as create,
  type JobCommand,
  type RunChange,
  removePickJobFromRun,
} from "../domain/pickrun.ts";
import type { JsonObject, PickJob, PickRun } from "../domain/types.ts";
import { pickJobEvent, pickRunEvent } from "../events/picking.events.ts";
import type { PickingDeps } from "./deps.ts";
import { actionContext, plain } from "./pickjobs.ts";

async function requireRun(em: EntityManager, ctx: RequestContext, id: string, forUpdate: boolean) {
  const run = isUuid(id) ? await loadRun(em, ctx.tenant, id, forUpdate) : undefined;
  if (!run) throw notFound("pick run", id);
  return run;
}

function checkVersion(run: PickRun, version: unknown): void {
  if (typeof version !== "number" || !Number.isInteger(version)) {
    throw invalid("VERSION_REQUIRED", "version must be the pick run's current version.", "/version");
  }
  if (version !== run.version) throw versionConflict("pick run", version, run.version);
}

/**
 * Applies the run's job commands to the (locked) jobs and writes run + jobs + all events.
 * Jobs are loaded and locked in id order; a START for a job that already runs is skipped.
 */
async function commit(
  deps: PickingDeps,
  ctx: RequestContext,
  em: EntityManager,
  change: RunChange,
  isNew: boolean,
  lockedJobs?: Map<string, PickJob>,
): Promise<PickRun> {
  const ac = actionContext(deps, ctx);
  const jobs =
    lockedJobs ??
    new Map(
      (await loadJobs(em, ctx.tenant, [...new Set(change.commands.map((c) => c.pickJobRef))], true)).map(
        (j) => [j.id, j],
      ),
    );
  const changed = new Map<string, PickJob>();
  const events: DomainEvent[] = [];
  for (const cmd of change.commands as JobCommand[]) {
    const job = changed.get(cmd.pickJobRef) ?? jobs.get(cmd.pickJobRef);
    if (!job) throw notFound("pick job", cmd.pickJobRef);
    if (cmd.action.name === "START" && job.status !== "OPEN") continue;
    const result = applyPickJobAction(job, cmd.action as JsonObject, ac);
    const next = plain(result.job);
    changed.set(next.id, next);
    events.push(pickJobEvent(result.event, next));
  }
  for (const job of changed.values()) await updateJob(em, ctx.tenant, job);
  const run = plain(change.run);
  if (isNew) await insertRun(em, ctx.tenant, run);
  else await updateRun(em, ctx.tenant, run);
  await deps.outbox.record(em, ctx, [pickRunEvent(change.event, run), ...events]);
  return run;
}

export async function createPickRun(
  deps: PickingDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<PickRun> {
  const refs = Array.isArray(body.pickJobRefs) ? (body.pickJobRefs as string[]) : [];
  return inTransaction(deps.orm, async (em) => {
    const jobs = await loadJobs(em, ctx.tenant, refs.filter(isUuid), true);
    const change = create(
      {
        facilityRef: String(body.facilityRef ?? ""),
        pickJobRefs: refs,
        pickRunType: body.pickRunType as string | undefined,
        status: body.status as string | undefined,
      },
      jobs,
      { ...actionContext(deps, ctx), id: deps.newId() },
    );
    return commit(deps, ctx, em, change, true, new Map(jobs.map((j) => [j.id, j])));
  });
}

export async function getPickRun(deps: PickingDeps, ctx: RequestContext, id: string): Promise<PickRun> {
  return requireRun(readEm(deps.orm), ctx, id, false);
}

export async function pickRunAction(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  action: JsonObject,
): Promise<PickRun> {
  return inTransaction(deps.orm, async (em) => {
    const run = await requireRun(em, ctx, id, true);
    checkVersion(run, action.version);
    return commit(deps, ctx, em, applyPickRunAction(run, action, actionContext(deps, ctx)), false);
  });
}

export async function patchPickRun(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  actions: JsonObject[],
): Promise<PickRun> {
  return inTransaction(deps.orm, async (em) => {
    const run = await requireRun(em, ctx, id, true);
    checkVersion(run, version);
    return commit(deps, ctx, em, applyPickRunPatch(run, actions, actionContext(deps, ctx)), false);
  });
}

export async function removePickJob(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  pickJobRef: string,
): Promise<PickRun> {
  return inTransaction(deps.orm, async (em) => {
    const run = await requireRun(em, ctx, id, true);
    checkVersion(run, version);
    return commit(deps, ctx, em, removePickJobFromRun(run, pickJobRef, actionContext(deps, ctx)), false);
  });
}
