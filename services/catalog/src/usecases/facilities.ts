/** Facility use cases: the registry other services validate their facilityRefs against. */
import type { JsonObject } from "@bufbuild/protobuf";
import type { RequestContext } from "@fop/kit/context";
import { query } from "@fop/kit/db/sql";
import { inTransaction, readEm } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { lookupTable } from "@fop/kit/lookup";
import { startAfterCondition, startAfterOrder } from "@fop/kit/search/keyset";
import { SqlBuilder } from "@fop/kit/search/sql-builder";
import { LockMode } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { FacilityEntity } from "../db/facility.entity.ts";
import { SCHEMA } from "../db/orm.ts";
import {
  createFacility as create,
  type Facility,
  type FacilityChange,
  type FacilityInput,
  type FacilityStatus,
  type FacilityType,
  type LocationType,
  modifyFacility as modify,
} from "../domain/facility.ts";
import { facilityEvent } from "../events/catalog.events.ts";
import type { CatalogDeps } from "./deps.ts";

const uniqueViolations = {
  facility_tenant_facility_id_key: () =>
    conflict(
      "TENANT_FACILITY_ID_TAKEN",
      "Another facility of this tenant has this tenantFacilityId.",
      "/tenantFacilityId",
    ),
};

export function toFacility(e: FacilityEntity): Facility {
  return {
    id: e.id,
    version: e.version,
    created: e.created,
    lastModified: e.lastModified,
    tenantFacilityId: e.tenantFacilityId ?? null,
    name: e.name,
    type: e.type as FacilityType,
    status: e.status as FacilityStatus,
    locationType: (e.locationType as LocationType | null) ?? null,
    address: (e.address as JsonObject | null) ?? null,
    customAttributes: (e.customAttributes as JsonObject | null) ?? null,
    details: (e.details as JsonObject) ?? {},
  };
}

function writeEntity(e: FacilityEntity, f: Facility): void {
  e.lastModified = f.lastModified;
  e.tenantFacilityId = f.tenantFacilityId;
  e.name = f.name;
  e.type = f.type;
  e.status = f.status;
  e.locationType = f.locationType;
  e.address = f.address;
  e.customAttributes = f.customAttributes;
  e.details = f.details;
}

async function load(
  em: EntityManager,
  ctx: RequestContext,
  id: string,
  forUpdate: boolean,
): Promise<FacilityEntity> {
  const found = isUuid(id)
    ? await em.findOne(
        FacilityEntity,
        { tenantId: ctx.tenant, id },
        forUpdate ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
      )
    : null;
  if (!found) throw notFound("facility", id);
  return found;
}

export interface FacilityFilter {
  size: number;
  startAfterId: string;
  statuses: FacilityStatus[];
  types: FacilityType[];
  tenantFacilityId?: string | undefined;
  /** "" or CREATED (creation order), NAME, POSTAL_CODE_ASC. */
  orderBy: string;
}

/** Sort keys of the list; each is backed by an index (tenant_id, key, id). */
const ORDERS = lookupTable({
  "": "t.id",
  CREATED: "t.id",
  NAME: "t.name",
  POSTAL_CODE_ASC: "(t.address ->> 'postalCode')",
});

/** GET /api/facilities: filtered page in the requested order, continuing after `startAfterId`, plus the total. */
export async function listFacilities(deps: CatalogDeps, ctx: RequestContext, f: FacilityFilter) {
  const key = ORDERS[f.orderBy];
  if (key === undefined)
    throw invalid("INVALID_ORDER", "orderBy must be NAME, CREATED or POSTAL_CODE_ASC.", "orderBy");
  if (f.startAfterId && !isUuid(f.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be the id of an entity.", "startAfterId");
  }
  const filter = (b: SqlBuilder) => {
    const parts = [`t.tenant_id = ${b.param(ctx.tenant, "text")}`];
    if (f.statuses.length) parts.push(`t.status = ANY(${b.param(f.statuses, "text[]")})`);
    if (f.types.length) parts.push(`t.type = ANY(${b.param(f.types, "text[]")})`);
    if (f.tenantFacilityId !== undefined)
      parts.push(`t.tenant_facility_id = ${b.param(f.tenantFacilityId, "text")}`);
    return parts.join(" AND ");
  };
  const b = new SqlBuilder();
  const page = [filter(b)];
  if (f.startAfterId) {
    // Continue after the named entity's position in this order (nulls sort last).
    page.push(
      startAfterCondition({ key, table: `${SCHEMA}.facility`, idParam: b.param(f.startAfterId, "uuid") }),
    );
  }
  const counting = new SqlBuilder();
  const where = filter(counting);
  const em = readEm(deps.orm);
  const order = startAfterOrder(key);
  const [rows, [count]] = await Promise.all([
    query(em, {
      text: `SELECT t.* FROM ${SCHEMA}.facility t WHERE ${page.join(" AND ")} ORDER BY ${order} LIMIT ${f.size}`,
      params: b.params,
    }),
    query<{ n: number }>(em, {
      text: `SELECT count(*)::int AS n FROM ${SCHEMA}.facility t WHERE ${where}`,
      params: counting.params,
    }),
  ]);
  return { facilities: rows.map((r) => toFacility(em.map(FacilityEntity, r))), total: count?.n ?? 0 };
}

export async function createFacility(
  deps: CatalogDeps,
  ctx: RequestContext,
  input: FacilityInput,
): Promise<Facility> {
  const facility = create(input, deps.newId(), deps.now());
  return inTransaction(
    deps.orm,
    async (em) => {
      const e = em.create(FacilityEntity, {
        tenantId: ctx.tenant,
        id: facility.id,
        created: facility.created,
        lastModified: facility.lastModified,
        name: facility.name,
        type: facility.type,
        status: facility.status,
        details: facility.details,
      });
      writeEntity(e, facility);
      await em.flush();
      await deps.outbox.record(em, ctx, [facilityEvent("CREATED", facility)]);
      return facility;
    },
    uniqueViolations,
  );
}

export async function getFacility(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Facility> {
  return toFacility(await load(readEm(deps.orm), ctx, id, false));
}

export async function modifyFacility(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  change: FacilityChange,
): Promise<Facility> {
  return inTransaction(
    deps.orm,
    async (em) => {
      const e = await load(em, ctx, id, true);
      writeEntity(e, modify(toFacility(e), change, version, deps.now()));
      await em.flush();
      const saved = toFacility(e);
      await deps.outbox.record(em, ctx, [facilityEvent("UPDATED", saved)]);
      return saved;
    },
    uniqueViolations,
  );
}

export async function deleteFacility(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Facility> {
  return inTransaction(deps.orm, async (em) => {
    const e = await load(em, ctx, id, true);
    const before = toFacility(e);
    em.remove(e);
    await em.flush();
    await deps.outbox.record(em, ctx, [facilityEvent("DELETED", before)]);
    return before;
  });
}

export async function lookupFacilityId(
  deps: CatalogDeps,
  ctx: RequestContext,
  tenantFacilityId: string,
): Promise<string> {
  const e = await readEm(deps.orm).findOne(
    FacilityEntity,
    { tenantId: ctx.tenant, tenantFacilityId },
    { fields: ["id"] },
  );
  if (!e) throw notFound("facility", `urn:fft:facility:tenantFacilityId:${tenantFacilityId}`);
  return e.id;
}
