/**
 * Facility group use cases. Every write that may add facilities locks them first (existence and
 * per-facility group counts are then exact under concurrent writes), then the group row; the
 * versionless actions rely on that lock alone, so two concurrent ones both land.
 */
import { facilityNotFound } from "@fop/contracts/clients/facilities";
import type { FacilityGroupListFilters } from "@fop/contracts/facilities";
import type { RequestContext } from "@fop/kit/context";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { runSearch, type SearchPage, type SearchParams, type SearchResource } from "@fop/kit/search/keyset";
import {
  deleteFacilityGroupRow,
  FACILITY_GROUP_COLUMNS,
  type FacilityGroupRow,
  findFacilityGroup,
  findFacilityGroupId,
  groupCounts,
  insertFacilityGroup,
  listFacilityGroupRows,
  lockFacilities,
  toFacilityGroup,
  updateFacilityGroup,
} from "../db/facility-group.rows.ts";
import { SCHEMA } from "../db/orm.ts";
import {
  actionFacilities,
  applyGroupAction,
  checkGroupsPerFacility,
  createFacilityGroup as create,
  type FacilityGroup,
  type FacilityGroupInput,
  type GroupAction,
  replaceFacilityGroup as replace,
} from "../domain/facility-group.ts";
import { facilityGroupEvent } from "../events/catalog.events.ts";
import type { CatalogDeps } from "./deps.ts";

const uniqueViolations = {
  facility_group_tenant_facility_group_id_key: () =>
    conflict(
      "TENANT_FACILITY_GROUP_ID_TAKEN",
      "Another facility group of this tenant has this tenantFacilityGroupId.",
      "/tenantFacilityGroupId",
    ),
};

async function load(db: Db, ctx: RequestContext, id: string, forUpdate: boolean): Promise<FacilityGroup> {
  const found = isUuid(id) ? await findFacilityGroup(db, ctx.tenant, id, forUpdate) : undefined;
  if (!found) throw notFound("facility group", id);
  return found;
}

/** Facility ids as stored (platform ids are lower-case UUIDs; anything else is no facility). */
const normalized = (refs: string[] | undefined) => refs?.map((r) => (isUuid(r) ? r.toLowerCase() : r));

/**
 * Locks `refs` (the caller's transaction) and returns the check that each is one of the tenant's
 * facilities (a 400 naming the first that is not). Facilities are locked before the group (one lock
 * order for every write), but the check runs once the path's group is loaded: a group that is not
 * the caller's is a 404 whatever the body names.
 */
async function lockFacilityRefs(
  tx: Db,
  ctx: RequestContext,
  refs: string[],
  field: string,
): Promise<() => void> {
  const existing = await lockFacilities(tx, ctx.tenant, [...new Set(refs.filter(isUuid))].sort());
  return () => {
    const i = refs.findIndex((r) => !existing.has(r));
    if (i >= 0) throw facilityNotFound(field, i, refs[i]);
  };
}

/** 400 when one of `added` is in as many other groups as a facility may be in. */
async function checkCounts(
  deps: CatalogDeps,
  tx: Db,
  ctx: RequestContext,
  groupId: string,
  added: string[],
  field: string,
) {
  const counts = await groupCounts(tx, ctx.tenant, added, groupId);
  checkGroupsPerFacility(added, counts, deps.groupLimits, field);
}

export async function createFacilityGroup(
  deps: CatalogDeps,
  ctx: RequestContext,
  input: FacilityGroupInput,
): Promise<FacilityGroup> {
  const group = create(
    { ...input, facilityRefs: normalized(input.facilityRefs) },
    deps.newId(),
    deps.now(),
    deps.groupLimits,
  );
  return inTransaction(
    deps.db,
    async (tx) => {
      (await lockFacilityRefs(tx, ctx, group.facilityRefs, "/facilityRefs"))();
      await checkCounts(deps, tx, ctx, group.id, group.facilityRefs, "/facilityRefs");
      await insertFacilityGroup(tx, ctx.tenant, group, deps.defaultLocale);
      await deps.outbox.record(tx, ctx, [facilityGroupEvent("CREATED", group, deps.defaultLocale)]);
      return group;
    },
    uniqueViolations,
  );
}

export const getFacilityGroup = (deps: CatalogDeps, ctx: RequestContext, id: string) =>
  load(deps.db, ctx, id, false);

export async function listFacilityGroups(
  deps: CatalogDeps,
  ctx: RequestContext,
  f: FacilityGroupListFilters,
  page: { size: number; startAfterId: string },
) {
  if (page.startAfterId && !isUuid(page.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be the id of a facility group.", "startAfterId");
  }
  return listFacilityGroupRows(deps.db, ctx.tenant, f, {
    ...page,
    startAfterId: page.startAfterId.toLowerCase(),
  });
}

/** PATCH: the updatable fields replaced on the version the body names. */
export async function replaceFacilityGroup(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  input: FacilityGroupInput & { version?: unknown },
): Promise<FacilityGroup> {
  const refs = normalized(input.facilityRefs) ?? [];
  return inTransaction(
    deps.db,
    async (tx) => {
      const checkRefs = await lockFacilityRefs(tx, ctx, refs, "/facilityRefs");
      const current = await load(tx, ctx, id, true);
      checkRefs();
      const next = replace(current, { ...input, facilityRefs: refs }, deps.now(), deps.groupLimits);
      const before = new Set(current.facilityRefs);
      await checkCounts(
        deps,
        tx,
        ctx,
        current.id,
        next.facilityRefs.filter((r) => !before.has(r)),
        "/facilityRefs",
      );
      await updateFacilityGroup(tx, ctx.tenant, next, deps.defaultLocale);
      await deps.outbox.record(tx, ctx, [facilityGroupEvent("UPDATED", next, deps.defaultLocale)]);
      return next;
    },
    uniqueViolations,
  );
}

/** POST .../actions: ADD / REMOVE_FACILITIES_TO/FROM_GROUP, each also VERSIONLESS_. */
export async function facilityGroupAction(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  action: GroupAction,
): Promise<FacilityGroup> {
  const refs = normalized(actionFacilities(action)) ?? [];
  const adds = "facilitiesToAdd" in action;
  const normalizedAction = (
    adds ? { ...action, facilitiesToAdd: refs } : { ...action, facilitiesToRemove: refs }
  ) as GroupAction;
  return inTransaction(deps.db, async (tx) => {
    const checkRefs = adds ? await lockFacilityRefs(tx, ctx, refs, "/facilitiesToAdd") : () => {};
    const current = await load(tx, ctx, id, true);
    checkRefs();
    const { group, added } = applyGroupAction(current, normalizedAction, deps.now(), deps.groupLimits);
    if (group === current) return current;
    await checkCounts(deps, tx, ctx, current.id, added, "/facilitiesToAdd");
    await updateFacilityGroup(tx, ctx.tenant, group, deps.defaultLocale);
    await deps.outbox.record(tx, ctx, [facilityGroupEvent("UPDATED", group, deps.defaultLocale)]);
    return group;
  });
}

export async function deleteFacilityGroup(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    const before = await load(tx, ctx, id, true);
    await deleteFacilityGroupRow(tx, ctx.tenant, before.id);
    await deps.outbox.record(tx, ctx, [facilityGroupEvent("DELETED", before, deps.defaultLocale)]);
  });
}

export async function lookupFacilityGroupId(deps: CatalogDeps, ctx: RequestContext, value: string) {
  const id = await findFacilityGroupId(deps.db, ctx.tenant, value);
  if (!id) throw notFound("facility group", `urn:fft:facilitygroup:tenantFacilityGroupId:${value}`);
  return id;
}

/** What `POST /api/facilitygroups/search` may filter and sort on. */
export const facilityGroupSearch: SearchResource = {
  table: `${SCHEMA}.facility_group`,
  select: FACILITY_GROUP_COLUMNS,
  fields: {
    id: { kind: "string", column: "t.id", ops: ["eq", "notEq", "in", "notIn"], uuid: true },
    tenantFacilityGroupId: {
      kind: "string",
      column: "t.tenant_facility_group_id",
      ops: ["eq", "notEq", "in", "notIn"],
    },
    name: { kind: "anyElement", column: "t.name_values", ops: ["eq", "notEq", "in", "notIn", "like"] },
    facilityRefs: { kind: "contains", column: "t.facility_refs", ops: ["eq", "notEq"] },
  },
  sorts: {
    facilityCount: { expr: "t.facility_count", type: "numeric", nullable: false },
    name: { expr: "t.sort_name", type: "text", nullable: true },
    tenantFacilityGroupId: { expr: "t.tenant_facility_group_id", type: "text", nullable: false },
  },
};

export async function searchFacilityGroups(
  deps: CatalogDeps,
  ctx: RequestContext,
  params: SearchParams,
): Promise<SearchPage<FacilityGroup>> {
  const page = await runSearch(deps.db, ctx.tenant, facilityGroupSearch, params, {
    cursors: deps.cursors,
    now: deps.now(),
  });
  return { ...page, rows: page.rows.map((row) => toFacilityGroup(row as unknown as FacilityGroupRow)) };
}
