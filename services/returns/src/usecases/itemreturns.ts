/**
 * Item return use cases: every write locks the job (item returns are versioned with it), applies
 * the domain change, writes the job and records its event; a line item change that leaves every
 * line decided records REFUND_TRIGGERED, once per job (markRefundTriggered under the row lock).
 */
import type { ItemReturnListFilters } from "@fop/contracts/returns";
import type { RequestContext } from "@fop/kit/context";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction, type UniqueViolations } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import type { DomainEvent } from "@fop/kit/events/envelope";
import { isUuid } from "@fop/kit/ids";
import {
  insertParcel,
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
import { itemReturnOf, createParcel as newParcel, type Parcel } from "../domain/parcel.ts";
import type { JsonObject } from "../domain/types.ts";
import { ITEM_RETURN_ACTION_EVENTS, jobEvent, parcelEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";
import { getJob } from "./jobs.ts";

const ctxOf = (deps: ReturnsDeps) => ({ now: deps.now(), newId: deps.newId });

interface JobChange {
  job: ItemReturnJob;
  type: string;
  /** More rows and events the change writes in the same transaction (a parcel). */
  also?: (tx: Db) => Promise<DomainEvent[]>;
}

async function writeJob<C extends JobChange>(
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  change: (job: ItemReturnJob) => C,
  unique?: UniqueViolations,
): Promise<C> {
  return inTransaction(
    deps.db,
    async (tx) => {
      const current = isUuid(jobId) ? await loadJob(tx, ctx.tenant, jobId, true) : undefined;
      if (!current) throw notFound("item return job", jobId);
      const changed = change(current);
      const { job, type } = changed;
      await updateJob(tx, ctx.tenant, job);
      const events = [jobEvent(type, job), ...((await changed.also?.(tx)) ?? [])];
      if (allLinesClosed(job) && (await markRefundTriggered(tx, ctx.tenant, job.id, deps.now()))) {
        events.push(jobEvent("REFUND_TRIGGERED", job));
      }
      await deps.outbox.record(tx, ctx, events);
      return changed;
    },
    unique,
  );
}

const jobOf = (c: JobChange) => c.job;

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
  })).then(jobOf);
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
  })).then(jobOf);

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
  })).then(jobOf);

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
  })).then(jobOf);

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
  })).then(jobOf);

/** GET /api/itemreturns: item returns across jobs (searchPaths: the job they are in). */
export async function findItemReturns(
  deps: ReturnsDeps,
  ctx: RequestContext,
  filter: ItemReturnListFilters,
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

const parcelUniqueViolations: UniqueViolations = {
  parcel_tenant_parcel_id_key: () =>
    conflict(
      "TENANT_PARCEL_ID_TAKEN",
      "tenantParcelId: another parcel of this tenant that is not obsolete or canceled has it.",
      "/tenantParcelId",
    ),
};

/**
 * POST .../itemreturns/{id}/parcels: the carrier must be the tenant's (400); the sender defaults to
 * the return facility's address. The registries are asked before the job is locked; the parcel is
 * written with the job (its parcelRefs), recording ITEM_RETURN_PARCEL_CREATED and PARCEL_CREATED.
 */
export async function createParcel(
  deps: ReturnsDeps,
  ctx: RequestContext,
  jobId: string,
  itemReturnId: string,
  body: JsonObject,
): Promise<Parcel> {
  const itemReturn = itemReturnOf(await getJob(deps, ctx, jobId), itemReturnId);
  if (!itemReturn) throw notFound("item return", itemReturnId);
  const carrier = body.carrierRef;
  if (typeof carrier === "string" && carrier && !(await deps.carriers.exists(ctx, carrier))) {
    throw invalid(
      "CARRIER_NOT_FOUND",
      `carrierRef: no carrier with id ${JSON.stringify(carrier)} exists.`,
      "/carrierRef",
    );
  }
  const facilityAddress =
    body.sender === undefined || body.sender === null
      ? await deps.facilities.address(ctx, itemReturn.returnFacilityRef)
      : undefined;
  const written = await writeJob(
    deps,
    ctx,
    jobId,
    (job) => {
      const current = itemReturnOf(job, itemReturnId); // it may have gone while the registries answered
      if (!current) throw notFound("item return", itemReturnId);
      const { job: next, parcel } = newParcel(job, current, body, { facilityAddress }, ctxOf(deps));
      return {
        job: next,
        parcel,
        type: "ITEM_RETURN_PARCEL_CREATED",
        also: async (tx: Db) => {
          await insertParcel(tx, ctx.tenant, next.id, current.id, parcel);
          return [parcelEvent("PARCEL_CREATED", parcel)];
        },
      };
    },
    parcelUniqueViolations,
  );
  return written.parcel;
}
