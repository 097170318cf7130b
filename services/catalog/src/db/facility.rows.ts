/**
 * Reading and writing facility rows with plain SQL (kit db/sql), one statement per step; the fixed
 * statements are prepared.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { type Db, query } from "@fop/kit/db/sql";
import type { Facility, FacilityStatus, FacilityType, LocationType } from "../domain/facility.ts";
import { SCHEMA } from "./orm.ts";

/** A catalog.facility row as node-postgres returns it (timestamptz as Date, jsonb parsed). */
export type FacilityRow = {
  id: string;
  version: number;
  created: Date;
  last_modified: Date;
  tenant_facility_id: string | null;
  name: string;
  type: string;
  status: string;
  location_type: string | null;
  address: JsonObject | null;
  custom_attributes: JsonObject | null;
  details: JsonObject | null;
};

export const FACILITY_COLUMNS =
  "t.id, t.version, t.created, t.last_modified, t.tenant_facility_id, t.name, t.type, t.status, t.location_type, t.address, t.custom_attributes, t.details";

export const toFacility = (r: FacilityRow): Facility => ({
  id: r.id,
  version: r.version,
  created: r.created,
  lastModified: r.last_modified,
  tenantFacilityId: r.tenant_facility_id,
  name: r.name,
  type: r.type as FacilityType,
  status: r.status as FacilityStatus,
  locationType: (r.location_type as LocationType | null) ?? null,
  address: r.address,
  customAttributes: r.custom_attributes,
  details: r.details ?? {},
});

const json = (v: JsonObject | null) => (v === null ? null : JSON.stringify(v));

/** The columns every write sets, $3.. after tenant ($1) and id ($2). */
const values = (f: Facility) => [
  f.version,
  f.lastModified.toISOString(),
  f.tenantFacilityId,
  f.name,
  f.type,
  f.status,
  f.locationType,
  json(f.address),
  json(f.customAttributes),
  JSON.stringify(f.details),
];

const INSERT = `insert into ${SCHEMA}.facility (tenant_id, id, version, last_modified, tenant_facility_id, name,
  type, status, location_type, address, custom_attributes, details, created)
  values ($1, $2::uuid, $3, $4::timestamptz, $5, $6, $7, $8, $9, $10::jsonb, $11::jsonb, $12::jsonb, $13::timestamptz)`;

const UPDATE = `update ${SCHEMA}.facility set version = $3, last_modified = $4::timestamptz, tenant_facility_id = $5,
  name = $6, type = $7, status = $8, location_type = $9, address = $10::jsonb, custom_attributes = $11::jsonb,
  details = $12::jsonb where tenant_id = $1 and id = $2::uuid`;

export async function insertFacility(db: Db, tenant: string, f: Facility): Promise<void> {
  await query(db, {
    text: INSERT,
    params: [tenant, f.id, ...values(f), f.created.toISOString()],
    prepare: true,
  });
}

/** Writes a changed facility; the caller holds the row lock (findFacility with forUpdate). */
export async function updateFacility(db: Db, tenant: string, f: Facility): Promise<void> {
  await query(db, { text: UPDATE, params: [tenant, f.id, ...values(f)], prepare: true });
}

export async function deleteFacilityRow(db: Db, tenant: string, id: string): Promise<void> {
  await query(db, {
    text: `delete from ${SCHEMA}.facility where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
}

export async function findFacility(
  db: Db,
  tenant: string,
  id: string,
  forUpdate: boolean,
): Promise<Facility | undefined> {
  const [row] = await query<FacilityRow>(db, {
    text: `select ${FACILITY_COLUMNS} from ${SCHEMA}.facility t where t.tenant_id = $1 and t.id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return row ? toFacility(row) : undefined;
}

/** The tenant's facilities among `ids` (well-formed uuids), in id order: one statement for all. */
export async function findFacilities(db: Db, tenant: string, ids: string[]): Promise<Facility[]> {
  const rows = await query<FacilityRow>(db, {
    text: `select ${FACILITY_COLUMNS} from ${SCHEMA}.facility t where t.tenant_id = $1 and t.id = any($2::uuid[]) order by t.id`,
    params: [tenant, ids],
    prepare: true,
  });
  return rows.map(toFacility);
}

export async function findFacilityId(
  db: Db,
  tenant: string,
  tenantFacilityId: string,
): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(db, {
    text: `select id from ${SCHEMA}.facility where tenant_id = $1 and tenant_facility_id = $2`,
    params: [tenant, tenantFacilityId],
    prepare: true,
  });
  return row?.id;
}
