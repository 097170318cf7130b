/**
 * Reading and writing facility group rows with plain SQL; `facility_count`, `sort_name` and
 * `name_values` are derived from the group on every write (for search). The facilities a write
 * names are locked first (lockFacilities), then the group: one order everywhere, so concurrent
 * writes queue instead of deadlocking, and per-facility group counts are exact.
 */

import type { JsonObject } from "@bufbuild/protobuf";
import type { FacilityGroupListFilters } from "@fop/contracts/facilities";
import { type Db, query } from "@fop/kit/db/sql";
import { readSnapshot } from "@fop/kit/db/tx";
import { nameIndex } from "../domain/category.ts";
import type { FacilityGroup } from "../domain/facility-group.ts";
import { SCHEMA } from "./orm.ts";

export const FACILITY_GROUP_COLUMNS = `t.id, t.version, t.tenant_facility_group_id, t.name_localized, t.custom_attributes,
  t.facility_refs, (extract(epoch from t.created) * 1000)::float8 as created_ms,
  (extract(epoch from t.last_modified) * 1000)::float8 as last_modified_ms`;

export interface FacilityGroupRow {
  id: string;
  version: number;
  tenant_facility_group_id: string;
  name_localized: Record<string, string>;
  custom_attributes: JsonObject | null;
  facility_refs: string[];
  created_ms: number;
  last_modified_ms: number;
}

export const toFacilityGroup = (r: FacilityGroupRow): FacilityGroup => ({
  id: r.id,
  version: r.version,
  created: new Date(r.created_ms),
  lastModified: new Date(r.last_modified_ms),
  tenantFacilityGroupId: r.tenant_facility_group_id,
  nameLocalized: r.name_localized,
  facilityRefs: r.facility_refs,
  customAttributes: r.custom_attributes,
});

export async function findFacilityGroup(
  db: Db,
  tenant: string,
  id: string,
  forUpdate: boolean,
): Promise<FacilityGroup | undefined> {
  const [row] = await query<FacilityGroupRow>(db, {
    text: `select ${FACILITY_GROUP_COLUMNS} from ${SCHEMA}.facility_group t where t.tenant_id = $1 and t.id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return row ? toFacilityGroup(row) : undefined;
}

/** A page in id order after `startAfterId`, optionally one tenantFacilityGroupId; and the count. */
export async function listFacilityGroupRows(
  db: Db,
  tenant: string,
  f: FacilityGroupListFilters,
  page: { size: number; startAfterId: string },
): Promise<{ groups: FacilityGroup[]; total: number }> {
  const where = "t.tenant_id = $1 and ($2::text is null or t.tenant_facility_group_id = $2)";
  const params = [tenant, f.tenantFacilityGroupId ?? null];
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<FacilityGroupRow>(tx, {
        text: `select ${FACILITY_GROUP_COLUMNS} from ${SCHEMA}.facility_group t where ${where}
        and ($3::uuid is null or t.id > $3::uuid) order by t.id limit $4`,
        params: [...params, page.startAfterId || null, page.size],
        prepare: true,
      }),
      query<{ total: string }>(tx, {
        text: `select count(*) as total from ${SCHEMA}.facility_group t where ${where}`,
        params,
        prepare: true,
      }),
    ]),
  );
  return { groups: rows.map(toFacilityGroup), total: Number(count[0]?.total ?? 0) };
}

/** The group's stored fields after (tenant, id, version, timestamp): $5.. of both statements. */
function fields(g: FacilityGroup, defaultLocale: string): unknown[] {
  const names = nameIndex(g.nameLocalized, defaultLocale);
  return [
    g.tenantFacilityGroupId,
    JSON.stringify(g.nameLocalized),
    g.customAttributes === null ? null : JSON.stringify(g.customAttributes),
    g.facilityRefs,
    names.sortName,
    names.values,
  ];
}

export async function insertFacilityGroup(db: Db, tenant: string, g: FacilityGroup, defaultLocale: string) {
  await query(db, {
    text: `insert into ${SCHEMA}.facility_group (tenant_id, id, version, created, last_modified,
        tenant_facility_group_id, name_localized, custom_attributes, facility_refs, facility_count, sort_name, name_values)
      values ($1, $2::uuid, $3, $4::timestamptz, $4::timestamptz, $5, $6::jsonb, $7::jsonb, $8::text[],
        cardinality($8::text[]), $9, $10::text[])`,
    params: [tenant, g.id, g.version, g.created.toISOString(), ...fields(g, defaultLocale)],
    prepare: true,
  });
}

/** Writes a changed group; the caller holds its row lock. */
export async function updateFacilityGroup(db: Db, tenant: string, g: FacilityGroup, defaultLocale: string) {
  await query(db, {
    text: `update ${SCHEMA}.facility_group set version = $3, last_modified = $4::timestamptz,
        tenant_facility_group_id = $5, name_localized = $6::jsonb, custom_attributes = $7::jsonb,
        facility_refs = $8::text[], facility_count = cardinality($8::text[]), sort_name = $9, name_values = $10::text[]
      where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, g.id, g.version, g.lastModified.toISOString(), ...fields(g, defaultLocale)],
    prepare: true,
  });
}

export async function deleteFacilityGroupRow(db: Db, tenant: string, id: string): Promise<void> {
  await query(db, {
    text: `delete from ${SCHEMA}.facility_group where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
}

export async function findFacilityGroupId(
  db: Db,
  tenant: string,
  tenantFacilityGroupId: string,
): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(db, {
    text: `select id from ${SCHEMA}.facility_group where tenant_id = $1 and tenant_facility_group_id = $2`,
    params: [tenant, tenantFacilityGroupId],
    prepare: true,
  });
  return row?.id;
}

/**
 * Locks the tenant's facilities among `ids` (all uuids), in id order, until the transaction ends,
 * and answers which exist. Concurrent writes naming a common facility queue here.
 */
export async function lockFacilities(db: Db, tenant: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await query<{ id: string }>(db, {
    text: `select id::text from ${SCHEMA}.facility where tenant_id = $1 and id = any($2::uuid[])
      order by id for no key update`,
    params: [tenant, ids],
    prepare: true,
  });
  return new Set(rows.map((r) => r.id));
}

/** How many groups other than `exceptGroup` each of `ids` is in (absent: none). */
export async function groupCounts(
  db: Db,
  tenant: string,
  ids: string[],
  exceptGroup: string,
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await query<{ ref: string; n: string }>(db, {
    text: `select ref, count(*) as n from ${SCHEMA}.facility_group g, unnest(g.facility_refs) ref
      where g.tenant_id = $1 and g.facility_refs && $2::text[] and ref = any($2::text[]) and g.id <> $3::uuid
      group by ref`,
    params: [tenant, ids, exceptGroup],
    prepare: true,
  });
  return new Map(rows.map((r) => [r.ref, Number(r.n)]));
}

/** Takes a deleted facility out of every group holding it; answers the groups as changed. */
export async function removeFacilityFromGroups(
  db: Db,
  tenant: string,
  facilityId: string,
  now: Date,
): Promise<FacilityGroup[]> {
  const rows = await query<FacilityGroupRow>(db, {
    text: `update ${SCHEMA}.facility_group t set facility_refs = array_remove(t.facility_refs, $2),
        facility_count = t.facility_count - 1, version = t.version + 1, last_modified = $3::timestamptz
      where t.tenant_id = $1 and t.facility_refs @> array[$2]::text[]
      returning ${FACILITY_GROUP_COLUMNS}`,
    params: [tenant, facilityId, now.toISOString()],
    prepare: true,
  });
  return rows.map(toFacilityGroup);
}
