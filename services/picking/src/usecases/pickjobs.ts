/** Pick job use cases: each is one transaction (or one read) scoped to the caller's tenant. */

import type { PickJobListFilters } from "@fop/contracts/picking";
import { batchIds } from "@fop/kit/batch";
import type { RequestContext } from "@fop/kit/context";
import { requireInstant } from "@fop/kit/datetime";
import type { Db } from "@fop/kit/db/sql";
import { query } from "@fop/kit/db/sql";
import { inTransaction, readSnapshot } from "@fop/kit/db/tx";
import { AppError, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { lookupTable } from "@fop/kit/lookup";
import {
  runSearch,
  type SearchPage,
  type SearchParams,
  startAfterCondition,
  startAfterOrder,
} from "@fop/kit/search/keyset";
import { SqlBuilder } from "@fop/kit/search/sql-builder";
import { requireCurrentVersion } from "@fop/kit/validation";
import { SCHEMA } from "../db/orm.ts";
import {
  insertJobStatement,
  loadJob,
  loadJobDocument,
  loadJobDocuments,
  type StoredDocument,
  updateJob,
} from "../db/rows.ts";
import { TARGET_TIME_KEY } from "../db/sort-keys.ts";
import type { DocumentKind } from "../documents/pdf.ts";
import { applyPickJobAction, INTERNAL_ACTIONS, pickingMoment } from "../domain/lifecycle.ts";
import { applyPickJobPatch, patchPickingMoments } from "../domain/patch.ts";
import {
  type LoadUnitAssignee,
  needsLoadUnitAnswer,
  type PickingMoment,
  rulesOf,
} from "../domain/picking-config.ts";
import { availableSubstitutes, createPickJob as create } from "../domain/pickjob.ts";
import type { ActionContext, JsonObject, PickJob } from "../domain/types.ts";
import { pickJobEvent } from "../events/picking.events.ts";
import type { PickingDeps } from "./deps.ts";
import { tenantPickingRules } from "./picking-config.ts";
import { pickJobSearch } from "./pickjob-search.ts";

export function actionContext(deps: PickingDeps, ctx: RequestContext): ActionContext {
  return {
    now: deps.now(),
    user: { userId: ctx.principal.userId, username: ctx.principal.username },
    roles: ctx.principal.roles,
    newId: deps.newId,
  };
}

/** actionContext plus the tenant's picking rules, read in the change's transaction `db`. */
export async function ruledActionContext(
  deps: PickingDeps,
  ctx: RequestContext,
  db: Db,
): Promise<ActionContext> {
  return { ...actionContext(deps, ctx), rules: await tenantPickingRules(db, ctx.tenant) };
}

/**
 * `ac` plus which of `jobIds` have a load unit, when the tenant's rules (loadUnitAssignment[`of`])
 * require one at one of the `moments` the change reaches: then one call to the loadunits service
 * (unavailable: the change fails with it, 503; never let through); otherwise no call at all. Made
 * in the change's transaction, after the rules and the job are read (the job stays locked for the
 * call's duration: only tenants that configured it pay for it).
 */
export async function withLoadUnits(
  deps: PickingDeps,
  ctx: RequestContext,
  ac: ActionContext,
  jobIds: readonly string[],
  moments: readonly (PickingMoment | undefined)[],
  of: LoadUnitAssignee = "pickJob",
): Promise<ActionContext> {
  if (jobIds.length === 0 || !needsLoadUnitAnswer(rulesOf(ac), moments, of)) return ac;
  return { ...ac, pickJobsWithLoadUnits: await deps.loadUnits.pickJobsWithLoadUnits(ctx, jobIds) };
}

export async function requireJob(
  db: Db,
  ctx: RequestContext,
  id: string,
  forUpdate: boolean,
): Promise<PickJob> {
  const job = isUuid(id) ? await loadJob(db, ctx.tenant, id, forUpdate) : undefined;
  if (!job) throw notFound("pick job", id);
  return job;
}

export async function createPickJob(
  deps: PickingDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<PickJob> {
  const facilityRef = typeof body.facilityRef === "string" ? body.facilityRef : "";
  if (!(await deps.facilities.exists(ctx, facilityRef))) {
    throw invalid(
      "FACILITY_NOT_FOUND",
      `facilityRef ${JSON.stringify(facilityRef)} names no facility of this tenant.`,
      "/facilityRef",
    );
  }
  const job = create(body, { ...actionContext(deps, ctx), id: deps.newId(), shortId: deps.newShortId() });
  // The row and its event in one statement (no read first: no transaction round trips).
  await deps.outbox.write(deps.db, ctx, insertJobStatement(ctx.tenant, job), [
    pickJobEvent("PICK_JOB_CREATED", job),
  ]);
  return job;
}

export async function getPickJob(deps: PickingDeps, ctx: RequestContext, id: string): Promise<PickJob> {
  return requireJob(deps.db, ctx, id, false);
}

/** GET /api/pickjobs/{id}: the stored document as it is (no parse, no re-serialization). */
export async function readPickJob(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
): Promise<StoredDocument> {
  const doc = isUuid(id) ? await loadJobDocument(deps.db, ctx.tenant, id) : undefined;
  if (!doc) throw notFound("pick job", id);
  return doc;
}

/** Many pick jobs in one read (GraphQL references), as GetPickJob: unknown and malformed ids are left out. */
export async function readPickJobs(
  deps: PickingDeps,
  ctx: RequestContext,
  ids: readonly string[],
): Promise<StoredDocument[]> {
  const wanted = batchIds(ids);
  return wanted.length ? loadJobDocuments(deps.db, ctx.tenant, wanted) : [];
}

/** POST /api/pickjobs/{id}/actions: one action on the version the body names. */
export async function pickJobAction(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  action: JsonObject,
): Promise<PickJob> {
  if (typeof action.name === "string" && Object.hasOwn(INTERNAL_ACTIONS, action.name)) {
    throw invalid("UNKNOWN_ACTION", `Unknown action ${JSON.stringify(action.name)}.`, "/name");
  }
  return inTransaction(deps.db, async (db) => {
    const job = await requireJob(db, ctx, id, true);
    requireCurrentVersion("pick job", job, action.version);
    const ac = await ruledActionContext(deps, ctx, db);
    const moment = pickingMoment(job.status, String(action.name));
    const result = applyPickJobAction(job, action, await withLoadUnits(deps, ctx, ac, [job.id], [moment]));
    const next = result.job;
    await updateJob(db, ctx.tenant, next);
    await deps.outbox.record(db, ctx, [pickJobEvent(result.event, next)]);
    return next;
  });
}

/** The deprecated PATCH /api/pickjobs/{id}. */
export async function patchPickJob(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  actions: JsonObject[],
): Promise<PickJob> {
  return inTransaction(deps.db, async (db) => {
    const job = await requireJob(db, ctx, id, true);
    requireCurrentVersion("pick job", job, version);
    const ac = await ruledActionContext(deps, ctx, db);
    const moments = patchPickingMoments(actions);
    const result = applyPickJobPatch(job, actions, await withLoadUnits(deps, ctx, ac, [job.id], moments));
    const next = result.job;
    await updateJob(db, ctx.tenant, next);
    const events = result.events.length > 0 ? result.events : ["PICK_JOB_UPDATED"];
    await deps.outbox.record(
      db,
      ctx,
      events.map((e) => pickJobEvent(e, next)),
    );
    return next;
  });
}

export async function searchPickJobs(
  deps: PickingDeps,
  ctx: RequestContext,
  params: SearchParams,
): Promise<SearchPage<string>> {
  const page = await runSearch<{ json: string }>(deps.db, ctx.tenant, pickJobSearch, params, {
    cursors: deps.cursors,
    now: deps.now(),
  });
  return { ...page, rows: page.rows.map((r) => r.json) };
}

export async function getAvailableSubstitutes(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  lineItemId: string,
) {
  return availableSubstitutes(await getPickJob(deps, ctx, id), lineItemId);
}

export async function getPickJobDocument(
  deps: PickingDeps,
  ctx: RequestContext,
  id: string,
  kind: DocumentKind,
  locale?: string,
): Promise<{ content: Uint8Array; fileName: string }> {
  // The tenant's render place first: over its bound this is a 429 before any read.
  const slot = deps.documents.admit(ctx);
  let stored: StoredDocument;
  try {
    stored = await readPickJob(deps, ctx, id);
  } catch (err) {
    slot.release();
    throw err;
  }
  const rendered = await slot.render(stored.json, kind, deps.now(), locale);
  if (rendered) return rendered;
  const what = kind === "RETURN_NOTE" ? "return note" : "transfer label";
  throw new AppError("not_found", {
    code: `${kind}_NOT_FOUND`,
    description:
      kind === "RETURN_NOTE"
        ? `Pick job ${id} has no ${what}: return notes exist for SHIPPING jobs once they are PICKED or CLOSED.`
        : `Pick job ${id} has no ${what}: it has no transfers.`,
  });
}

/** Filters of GET /api/pickjobs (the reference's queryPickJobs parameters). */

/**
 * orderBy values of the list endpoint: the platform's (its SDK's PickJobOrderBy), and the
 * field names we took before those were known ("-" prefix: descending), which do not collide.
 * Every key is backed by an index (tenant_id, key, id).
 */
const LIST_ORDER = lookupTable<{ key: string; descending: boolean }>({
  TARGET_TIME_ASC: { key: TARGET_TIME_KEY, descending: false },
  TARGET_TIME_DESC: { key: TARGET_TIME_KEY, descending: true },
  LAST_MODIFIED_ASC: { key: "t.last_modified", descending: false },
  LAST_MODIFIED_DESC: { key: "t.last_modified", descending: true },
  ORDER_DATE_ASC: { key: "t.order_date", descending: false },
  ORDER_DATE_DESC: { key: "t.order_date", descending: true },
  LAST_MODIFIED_BY_USER_ASC: { key: "t.last_user_modification", descending: false },
  LAST_MODIFIED_BY_USER_DESC: { key: "t.last_user_modification", descending: true },
  ...Object.fromEntries(
    Object.entries({
      id: "t.id",
      created: "t.created",
      lastModified: "t.last_modified",
      orderDate: "t.order_date",
      targetTime: TARGET_TIME_KEY,
    }).flatMap(([field, key]) => [
      [field, { key, descending: false }],
      [`-${field}`, { key, descending: true }],
    ]),
  ),
});

/** The platform's orderBy values, for error messages. */
const PLATFORM_ORDERS = Object.keys(LIST_ORDER).filter((k) => /^[A-Z_]+$/.test(k));

const likeEscape = (s: string) => s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);

const dateParam = (v: string, field: string, b: SqlBuilder): string =>
  b.param(requireInstant(v, field), "timestamptz");

export async function listPickJobs(
  deps: PickingDeps,
  ctx: RequestContext,
  f: PickJobListFilters,
  page: { size: number; startAfterId: string },
): Promise<{ pickjobs: PickJob[]; total: number }> {
  const b = new SqlBuilder();
  const where = [`t.tenant_id = ${b.param(ctx.tenant, "text")}`];
  const eq = (col: string, v: string | undefined) => {
    if (v) where.push(`${col} = ${b.param(v, "text")}`);
  };
  const any = (col: string, v: string[] | undefined) => {
    if (v && v.length > 0) where.push(`${col} = any(${b.param(v, "text[]")})`);
  };
  eq("t.order_ref", f.orderRef);
  eq("t.facility_ref", f.facilityRef);
  eq("t.tenant_order_id", f.tenantOrderId);
  eq("t.channel", f.channel);
  eq("t.short_id", f.shortId);
  any("t.status", f.status);
  any("t.carrier_key", f.carrierKeys);
  if (f.zoneRefs?.length) where.push(`t.zone_refs && ${b.param(f.zoneRefs, "text[]")}`);
  if (f.pickJobRefs?.length) where.push(`t.id = any(${b.param(f.pickJobRefs.filter(isUuid), "uuid[]")})`);
  if (f.assignedUser) where.push(`t.user_refs @> ${b.param([`assigned:${f.assignedUser}`], "text[]")}`);
  if (f.modifiedByUsername)
    where.push(`t.user_refs @> ${b.param([`modified:${f.modifiedByUsername}`], "text[]")}`);
  if (f.anonymized !== undefined) where.push(`t.anonymized = ${b.param(f.anonymized, "boolean")}`);
  if (f.searchTerm) where.push(`t.search_text like ${b.param(`%${likeEscape(f.searchTerm)}%`, "text")}`);
  if (f.articleTitle) where.push(`t.search_text like ${b.param(`%${likeEscape(f.articleTitle)}%`, "text")}`);
  if (f.consumerName)
    where.push(`t.consumer_name ilike ${b.param(`%${likeEscape(f.consumerName)}%`, "text")}`);
  if (f.startOrderDate) where.push(`t.order_date >= ${dateParam(f.startOrderDate, "startOrderDate", b)}`);
  if (f.endOrderDate) where.push(`t.order_date <= ${dateParam(f.endOrderDate, "endOrderDate", b)}`);
  if (f.startTargetTime) where.push(`t.target_time >= ${dateParam(f.startTargetTime, "startTargetTime", b)}`);
  if (f.endTargetTime) where.push(`t.target_time <= ${dateParam(f.endTargetTime, "endTargetTime", b)}`);

  const order = LIST_ORDER[f.orderBy ?? "id"];
  if (!order) {
    throw invalid(
      "INVALID_ORDER_BY",
      `orderBy must be one of ${PLATFORM_ORDERS.join(", ")} (or a field: id, created, lastModified, orderDate, targetTime, "-" first for descending).`,
      "orderBy",
    );
  }
  const { key, descending: desc } = order;
  const filter = where.join(" and ");
  const countParams = [...b.params];
  const paged = [...where];
  if (page.startAfterId) {
    if (!isUuid(page.startAfterId)) {
      throw invalid("INVALID_ID", "startAfterId must be the id of a pick job.", "startAfterId");
    }
    paged.push(
      startAfterCondition({
        key,
        table: `${SCHEMA}.pick_job`,
        idParam: b.param(page.startAfterId, "uuid"),
        descending: desc,
      }),
    );
  }
  const db = deps.db;
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<{ doc: PickJob }>(tx, {
        text: `select t.doc from ${SCHEMA}.pick_job t where ${paged.join(" and ")} order by ${startAfterOrder(key, desc)} limit ${b.param(page.size, "int")}`,
        params: b.params,
      }),
      query<{ n: number }>(tx, {
        text: `select count(*)::int as n from ${SCHEMA}.pick_job t where ${filter}`,
        params: countParams,
      }),
    ]),
  );
  return { pickjobs: rows.map((r) => r.doc), total: count[0]?.n ?? 0 };
}
