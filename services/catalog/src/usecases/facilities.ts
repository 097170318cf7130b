/** Facility use cases: the registry other services validate their facilityRefs against. */
import type { FacilityListFilters } from "@fop/contracts/facilities";
import { batchIds } from "@fop/kit/batch";
import type { RequestContext } from "@fop/kit/context";
import { type Db, query } from "@fop/kit/db/sql";
import { inTransaction, readSnapshot } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { lookupTable } from "@fop/kit/lookup";
import { startAfterCondition, startAfterOrder } from "@fop/kit/search/keyset";
import { SqlBuilder } from "@fop/kit/search/sql-builder";
import {
  deleteFacilityRow,
  FACILITY_COLUMNS,
  type FacilityRow,
  findFacilities,
  findFacility,
  findFacilityId,
  insertFacility,
  toFacility,
  updateFacility,
} from "../db/facility.rows.ts";
import { removeFacilityFromGroups } from "../db/facility-group.rows.ts";
import { SCHEMA } from "../db/orm.ts";
import {
  createFacility as create,
  type Facility,
  type FacilityChange,
  type FacilityInput,
  modifyFacility as modify,
  replaceFacility as replace,
} from "../domain/facility.ts";
import { facilityEvent, facilityGroupEvent } from "../events/catalog.events.ts";
import type { CatalogDeps } from "./deps.ts";

const uniqueViolations = {
  facility_tenant_facility_id_key: () =>
    conflict(
      "TENANT_FACILITY_ID_TAKEN",
      "Another facility of this tenant has this tenantFacilityId.",
      "/tenantFacilityId",
    ),
};

async function load(db: Db, ctx: RequestContext, id: string, forUpdate: boolean): Promise<Facility> {
  const found = isUuid(id) ? await findFacility(db, ctx.tenant, id, forUpdate) : undefined;
  if (!found) throw notFound("facility", id);
  return found;
}

/** Sort keys of the list; each is backed by an index (tenant_id, key, id). */
const ORDERS = lookupTable({
  "": "t.id",
  CREATED: "t.id",
  NAME: "t.name",
  POSTAL_CODE_ASC: "(t.address ->> 'postalCode')",
});

/** GET /api/facilities: filtered page in the requested order, continuing after `startAfterId`, plus the total. */
export async function listFacilities(
  deps: CatalogDeps,
  ctx: RequestContext,
  f: FacilityListFilters,
  page: { size: number; startAfterId: string },
) {
  const key = ORDERS[f.orderBy ?? ""];
  if (key === undefined)
    throw invalid("INVALID_ORDER", "orderBy must be NAME, CREATED or POSTAL_CODE_ASC.", "orderBy");
  if (page.startAfterId && !isUuid(page.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be the id of an entity.", "startAfterId");
  }
  const filter = (b: SqlBuilder) => {
    const parts = [`t.tenant_id = ${b.param(ctx.tenant, "text")}`];
    if (f.status?.length) parts.push(`t.status = ANY(${b.param(f.status, "text[]")})`);
    if (f.type?.length) parts.push(`t.type = ANY(${b.param(f.type, "text[]")})`);
    if (f.tenantFacilityId !== undefined)
      parts.push(`t.tenant_facility_id = ${b.param(f.tenantFacilityId, "text")}`);
    return parts.join(" AND ");
  };
  const b = new SqlBuilder();
  const paged = [filter(b)];
  if (page.startAfterId) {
    // Continue after the named entity's position in this order (nulls sort last).
    paged.push(
      startAfterCondition({ key, table: `${SCHEMA}.facility`, idParam: b.param(page.startAfterId, "uuid") }),
    );
  }
  const counting = new SqlBuilder();
  const where = filter(counting);
  const order = startAfterOrder(key);
  const [rows, [count]] = await readSnapshot(deps.db, (tx) =>
    Promise.all([
      query<FacilityRow>(tx, {
        text: `SELECT ${FACILITY_COLUMNS} FROM ${SCHEMA}.facility t WHERE ${paged.join(" AND ")} ORDER BY ${order} LIMIT ${page.size}`,
        params: b.params,
      }),
      query<{ n: number }>(tx, {
        text: `SELECT count(*)::int AS n FROM ${SCHEMA}.facility t WHERE ${where}`,
        params: counting.params,
      }),
    ]),
  );
  return { facilities: rows.map(toFacility), total: count?.n ?? 0 };
}

export async function createFacility(
  deps: CatalogDeps,
  ctx: RequestContext,
  input: FacilityInput,
): Promise<Facility> {
  const facility = create(input, deps.newId(), deps.now());
  return inTransaction(
    deps.db,
    async (tx) => {
      await insertFacility(tx, ctx.tenant, facility);
      await deps.outbox.record(tx, ctx, [facilityEvent("CREATED", facility)]);
      return facility;
    },
    uniqueViolations,
  );
}

export async function getFacility(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Facility> {
  return load(deps.db, ctx, id, false);
}

/** Many facilities in one read (GraphQL references): unknown and malformed ids are left out. */
export async function batchGetFacilities(
  deps: CatalogDeps,
  ctx: RequestContext,
  ids: readonly string[],
): Promise<Facility[]> {
  const wanted = batchIds(ids);
  return wanted.length ? findFacilities(deps.db, ctx.tenant, wanted) : [];
}

export async function modifyFacility(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  change: FacilityChange,
): Promise<Facility> {
  return writeFacility(deps, ctx, id, (current) => modify(current, change, version, deps.now()));
}

/** PUT: replaces the facility's fields on the version the caller names. */
export async function replaceFacility(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  input: FacilityInput,
): Promise<Facility> {
  return writeFacility(deps, ctx, id, (current) => replace(current, input, version, deps.now()));
}

/** One change of a facility: lock it, apply the domain rule, store it, FACILITY_UPDATED. */
function writeFacility(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  change: (current: Facility) => Facility,
): Promise<Facility> {
  return inTransaction(
    deps.db,
    async (tx) => {
      const next = change(await load(tx, ctx, id, true));
      await updateFacility(tx, ctx.tenant, next);
      await deps.outbox.record(tx, ctx, [facilityEvent("UPDATED", next)]);
      return next;
    },
    uniqueViolations,
  );
}

export async function deleteFacility(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Facility> {
  return inTransaction(deps.db, async (tx) => {
    const before = await load(tx, ctx, id, true);
    await deleteFacilityRow(tx, ctx.tenant, id);
    // A deleted facility leaves every group it was in (each group's version moves).
    const groups = await removeFacilityFromGroups(tx, ctx.tenant, before.id, deps.now());
    await deps.outbox.record(tx, ctx, [
      facilityEvent("DELETED", before),
      ...groups.map((g) => facilityGroupEvent("UPDATED", g, deps.defaultLocale)),
    ]);
    return before;
  });
}

export async function lookupFacilityId(
  deps: CatalogDeps,
  ctx: RequestContext,
  tenantFacilityId: string,
): Promise<string> {
  const id = await findFacilityId(deps.db, ctx.tenant, tenantFacilityId);
  if (!id) throw notFound("facility", `urn:fft:facility:tenantFacilityId:${tenantFacilityId}`);
  return id;
}
