/** Item return job use cases: create, read, list, job actions. */
import { requireFacilities } from "@fop/contracts/clients/facilities";
import type { ItemReturnJobListFilters } from "@fop/contracts/returns";
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import {
  insertJob,
  listJobs as listRows,
  loadJob,
  loadStoredJob,
  type StoredJob,
  updateJob,
} from "../db/rows.ts";
import { createJob as create, type ItemReturnJob, jobAction } from "../domain/job.ts";
import type { JsonObject } from "../domain/types.ts";
import { JOB_ACTION_EVENTS, jobEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";

/** POST /api/itemreturnjobs. */
export async function createJob(
  deps: ReturnsDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<ItemReturnJob> {
  const job = create(body, { now: deps.now(), newId: deps.newId, shortId: deps.newShortId });
  await requireFacilities(deps.facilities, ctx, job.originFacilityRefs, "/originFacilityRefs");
  await inTransaction(deps.db, async (tx) => {
    await insertJob(tx, ctx.tenant, job);
    await deps.outbox.record(tx, ctx, [jobEvent("ITEM_RETURN_JOB_CREATED", job)]);
  });
  return job;
}

export async function getJob(deps: ReturnsDeps, ctx: RequestContext, id: string): Promise<ItemReturnJob> {
  const job = isUuid(id) ? await loadJob(deps.db, ctx.tenant, id) : undefined;
  if (!job) throw notFound("item return job", id);
  return job;
}

/** GET /api/itemreturnjobs/{id}: the stored document as it is (the gateway sends it on unparsed). */
export async function readJob(deps: ReturnsDeps, ctx: RequestContext, id: string): Promise<StoredJob> {
  const job = isUuid(id) ? await loadStoredJob(deps.db, ctx.tenant, id) : undefined;
  if (!job) throw notFound("item return job", id);
  return job;
}

/** GET /api/itemreturnjobs: by id (creation order) with the reference's filters. */
export async function listJobs(
  deps: ReturnsDeps,
  ctx: RequestContext,
  filter: ItemReturnJobListFilters,
  page: { size: number; startAfterId: string },
) {
  if (page.startAfterId && !isUuid(page.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be an item return job id.", "startAfterId");
  }
  return listRows(deps.db, ctx.tenant, filter, page);
}

/** POST /api/itemreturnjobs/{id}/actions. */
export async function applyJobAction(
  deps: ReturnsDeps,
  ctx: RequestContext,
  id: string,
  action: JsonObject,
): Promise<ItemReturnJob> {
  return inTransaction(deps.db, async (tx) => {
    const job = isUuid(id) ? await loadJob(tx, ctx.tenant, id, true) : undefined;
    if (!job) throw notFound("item return job", id);
    const next = jobAction(job, action, { now: deps.now(), newId: deps.newId });
    await updateJob(tx, ctx.tenant, next);
    const type = JOB_ACTION_EVENTS[String(action.name)] ?? "ITEM_RETURN_JOB_LINE_ITEMS_CHANGED";
    await deps.outbox.record(tx, ctx, [jobEvent(type, next)]);
    return next;
  });
}
