/**
 * Item return use cases: every write locks the job (item returns are versioned with it), applies
 * the domain change, writes the job and records its event; a line item change that leaves every
 * line decided records REFUND_TRIGGERED, once per job (markRefundTriggered under the row lock).
 */
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import {
  type ItemReturnFilter,
  listItemReturnsAcrossJobs,
  loadJob,
  markRefundTriggered,
  updateJob,
} from "../db/rows.ts";
import {
  itemReturnAction as act,
  addItemReturn as add,
  allLinesClosed,
  type ItemReturn,
  type LineKind,
  patchReturnLine,
  removeItemReturn,
  replaceReturnLines,
} from "../domain/itemreturn.ts";
import type { ItemReturnJob } from "../domain/job.ts";
import type { JsonObject } from "../domain/types.ts";
import { ITEM_RETURN_ACTION_EVENTS, jobEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";
import { getJob } from "./jobs.ts";

const ctxOf = (deps: ReturnsDeps) => ({ now: deps.now(), newId: deps.newId });

async function writeJob(
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  change: (job: ItemReturnJob) => { job: ItemReturnJob; type: string },
): Promise<ItemReturnJob> {
  return inTransaction(deps.db, async (tx) => {
    const current = isUuid(jobId) ? await loadJob(tx, ctx.tenant, jobId, true) : undefined;
    if (!current) throw notFound("item return job", jobId);
    const { job, type } = change(current);
    await updateJob(tx, ctx.tenant, job);
    const events = [jobEvent(type, job)];
    if (allLinesClosed(job) && (await markRefundTriggered(tx, ctx.tenant, job.id, deps.now()))) {
      events.push(jobEvent("REFUND_TRIGGERED", job));
    }
    await deps.outbox.record(tx, ctx, events);
    return job;
  });
}

/** POST .../itemreturns: the return facility must exist; answers the whole job. */
export async function addItemReturn(deps: ReturnsDeps, ctx: RequestContext, jobId: string, body: JsonObject) {
  await getJob(deps, ctx, jobId); // 404 before anything is said about the facility
  const facility = (body.itemReturnForCreation as JsonObject | undefined)?.returnFacilityRef;
  if (typeof facility === "string" && facility && !(await deps.facilities.exists(ctx, facility))) {
    throw invalid(
      "FACILITY_NOT_FOUND",
      `itemReturnForCreation/returnFacilityRef: no facility with id ${JSON.stringify(facility)} exists.`,
      "/itemReturnForCreation/returnFacilityRef",
    );
  }
  return writeJob(deps, ctx, jobId, (job) => ({
    job: add(job, body, ctxOf(deps)).job,
    type: "ITEM_RETURN_ADDED",
  }));
}

export async function listItemReturns(
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
): Promise<ItemReturn[]> {
  return (await getJob(deps, ctx, jobId)).itemReturns as unknown as ItemReturn[];
}

export async function getItemReturn(deps: ReturnsDeps, ctx: RequestContext, jobId: string, id: string) {
  const found = (await listItemReturns(deps, ctx, jobId)).find((r) => r.id === id);
  if (!found) throw notFound("item return", id);
  return found;
}

export const itemReturnAction = (
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  id: string,
  action: JsonObject,
) =>
  writeJob(deps, ctx, jobId, (job) => ({
    job: act(job, id, action, ctxOf(deps)).job,
    type: ITEM_RETURN_ACTION_EVENTS[String(action.name)] ?? "ITEM_RETURN_UPDATED",
  }));

export const patchLine = (
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  itemReturnId: string,
  kind: LineKind,
  lineId: string,
  body: JsonObject,
) =>
  writeJob(deps, ctx, jobId, (job) => ({
    job: patchReturnLine(job, itemReturnId, kind, lineId, body, ctxOf(deps)).job,
    type: "ITEM_RETURN_LINE_ITEM_UPDATED",
  }));

export const replaceLines = (
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  itemReturnId: string,
  kind: LineKind,
  body: JsonObject,
) =>
  writeJob(deps, ctx, jobId, (job) => ({
    job: replaceReturnLines(job, itemReturnId, kind, body, ctxOf(deps)).job,
    type: "ITEM_RETURN_LINE_ITEMS_REPLACED",
  }));

export const deleteItemReturn = (
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  itemReturnId: string,
  version: number | undefined,
) =>
  writeJob(deps, ctx, jobId, (job) => ({
    job: removeItemReturn(job, itemReturnId, version, ctxOf(deps)).job,
    type: "ITEM_RETURN_DELETED",
  }));

/** GET /api/itemreturns: item returns across jobs (searchPaths: the job they are in). */
export async function findItemReturns(
  deps: ReturnsDeps,
  ctx: RequestContext,
  filter: ItemReturnFilter,
  page: { size: number; startAfterId: string },
) {
  if (page.startAfterId && !isUuid(page.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be an item return id.", "startAfterId");
  }
  const { rows, total } = await listItemReturnsAcrossJobs(deps.db, ctx.tenant, filter, {
    ...page,
    startAfterId: page.startAfterId.toLowerCase(),
  });
  return {
    itemReturns: rows.map((r) => ({ ...r.itemReturn, searchPaths: [`itemReturnJobs/${r.jobId}`] })),
    total,
  };
}
