/**
 * Reading and writing rows. A row is the read-model document plus columns derived from it in the
 * same statement (from the document itself), so filters never drift from what clients read.
 */

import { type Db, query, type Sql } from "@fop/kit/db/sql";
import { readSnapshot } from "@fop/kit/db/tx";
import type { ContainerType, ContainerTypeKind, LoadUnit, Stack } from "../domain/types.ts";

/** A document as stored (`json`: its text, sent on as it is when no locale asks for a change). */
export interface Stored<T> {
  doc: T;
}

// --- load units ----------------------------------------------------------------------------------

const LOAD_UNIT_COLUMNS = `(d->>'id')::uuid, (d->>'version')::int, (d->>'created')::timestamptz,
  (d->>'lastModified')::timestamptz, d->>'status', d->>'facilityRef',
  array(select jsonb_array_elements_text(d->'pickJobRefs')), d->>'stackRef', d`;

/** Inserts load units (one statement for any number). */
export const insertLoadUnitsStatement = (tenant: string, units: LoadUnit[]): Sql => ({
  text: `insert into load_unit (tenant_id, id, version, created, last_modified, status, facility_ref, pick_job_refs, stack_ref, doc)
    select $1, ${LOAD_UNIT_COLUMNS} from jsonb_array_elements($2::jsonb) d`,
  params: [tenant, JSON.stringify(units)],
  prepare: true,
});

/** Writes changed load units (the version was checked under the row lock). */
export async function updateLoadUnits(db: Db, tenant: string, units: LoadUnit[]): Promise<void> {
  if (units.length === 0) return;
  await query(db, {
    text: `update load_unit u set version = (d->>'version')::int, last_modified = (d->>'lastModified')::timestamptz,
        status = d->>'status', stack_ref = d->>'stackRef', doc = d
      from jsonb_array_elements($2::jsonb) d
      where u.tenant_id = $1 and u.id = (d->>'id')::uuid`,
    params: [tenant, JSON.stringify(units)],
    prepare: true,
  });
}

export async function loadLoadUnit(
  db: Db,
  tenant: string,
  id: string,
  forUpdate = false,
): Promise<LoadUnit | undefined> {
  const rows = await query<{ doc: LoadUnit }>(db, {
    text: `select doc from load_unit where tenant_id = $1 and id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** A load unit's document as stored text, with its envelope fields. */
export interface LoadUnitJsonRow {
  id: string;
  version: number;
  status: string;
  json: string;
}
const LOAD_UNIT_JSON = "select id, version, status, doc::text as json from load_unit";

/** The document's text as stored (GET without a locale: no parse, no re-serialization). */
export async function loadLoadUnitJson(db: Db, tenant: string, id: string) {
  const rows = await query<LoadUnitJsonRow>(db, {
    text: `${LOAD_UNIT_JSON} where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

/**
 * Every load unit (any status) belonging to any of `pickJobRefs` (lower-case ids, as stored by
 * the pick job's own endpoints), each once, oldest first: one statement for all.
 */
export async function loadPickJobsLoadUnitsJson(
  db: Db,
  tenant: string,
  pickJobRefs: string[],
): Promise<LoadUnitJsonRow[]> {
  return query<LoadUnitJsonRow>(db, {
    text: `${LOAD_UNIT_JSON} where tenant_id = $1 and pick_job_refs && $2::text[] order by id`,
    params: [tenant, pickJobRefs],
    prepare: true,
  });
}

/** Load units by id, locked in id order (concurrent bulk deletes cannot deadlock). */
export async function loadLoadUnitsById(db: Db, tenant: string, ids: string[]): Promise<LoadUnit[]> {
  const rows = await query<{ doc: LoadUnit }>(db, {
    text: "select doc from load_unit where tenant_id = $1 and id = any($2::uuid[]) order by id for update",
    params: [tenant, ids],
    prepare: true,
  });
  return rows.map((r) => r.doc);
}

/** Every load unit of a pick job, oldest first (`lock`: for update). */
export async function loadPickJobLoadUnits(
  db: Db,
  tenant: string,
  pickJobRef: string,
  lock = false,
): Promise<LoadUnit[]> {
  const rows = await query<{ doc: LoadUnit }>(db, {
    text: `select doc from load_unit where tenant_id = $1 and pick_job_refs @> array[$2::text] order by id${lock ? " for update" : ""}`,
    params: [tenant, pickJobRef],
    prepare: true,
  });
  return rows.map((r) => r.doc);
}

export interface LoadUnitFilter {
  pickJobRef?: string;
  /** Empty: every status. */
  statuses: string[];
}

/** One page (by id) of load units matching `f`, and how many match in all. */
export async function listLoadUnits(
  db: Db,
  tenant: string,
  f: LoadUnitFilter,
  page: { size: number; startAfterId: string },
): Promise<{ rows: { json: string }[]; total: number }> {
  const where = [
    "tenant_id = $1",
    "($2::text is null or pick_job_refs @> array[$2::text])",
    "(cardinality($3::text[]) = 0 or status = any($3::text[]))",
  ].join(" and ");
  const params = [tenant, f.pickJobRef ?? null, f.statuses];
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<{ json: string }>(tx, {
        text: `select doc::text as json from load_unit where ${where} and ($4::uuid is null or id > $4::uuid) order by id limit $5`,
        params: [...params, page.startAfterId || null, page.size],
        prepare: true,
      }),
      query<{ total: string }>(tx, {
        text: `select count(*) as total from load_unit where ${where}`,
        params,
        prepare: true,
      }),
    ]),
  );
  return { rows, total: Number(count[0]?.total ?? 0) };
}

// --- stacks --------------------------------------------------------------------------------------

export const insertStackStatement = (tenant: string, s: Stack): Sql => ({
  text: `insert into stack (tenant_id, id, version, created, last_modified, facility_refs, doc)
    values ($1, $2::uuid, $3, $4, $5, $6::text[], $7::jsonb)`,
  params: [tenant, s.id, s.version, s.created, s.lastModified, s.facilityRefs, JSON.stringify(s)],
  prepare: true,
});

/** A stack's document as stored text, with its envelope fields. */
export interface StackJsonRow {
  id: string;
  version: number;
  json: string;
}
const STACK_JSON = "select id, version, doc::text as json from stack";

export async function loadStackJson(db: Db, tenant: string, id: string) {
  const rows = await query<StackJsonRow>(db, {
    text: `${STACK_JSON} where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

/** The tenant's stacks among `ids` (well-formed uuids), in id order: one statement for all. */
export async function loadStacksJson(db: Db, tenant: string, ids: string[]): Promise<StackJsonRow[]> {
  return query<StackJsonRow>(db, {
    text: `${STACK_JSON} where tenant_id = $1 and id = any($2::uuid[]) order by id`,
    params: [tenant, ids],
    prepare: true,
  });
}

/** Whether the tenant has the stack (a load unit's stackRef must name one). */
export async function stackExists(db: Db, tenant: string, id: string): Promise<boolean> {
  const rows = await query(db, {
    text: "select 1 from stack where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
  return rows.length > 0;
}

export async function listStacks(
  db: Db,
  tenant: string,
  facilityRefs: string[],
  page: { size: number; startAfterId: string },
): Promise<{ rows: { id: string; version: number; json: string }[]; total: number }> {
  const where = "tenant_id = $1 and (cardinality($2::text[]) = 0 or facility_refs && $2::text[])";
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<{ id: string; version: number; json: string }>(tx, {
        text: `select id, version, doc::text as json from stack where ${where} and ($3::uuid is null or id > $3::uuid) order by id limit $4`,
        params: [tenant, facilityRefs, page.startAfterId || null, page.size],
        prepare: true,
      }),
      query<{ total: string }>(tx, {
        text: `select count(*) as total from stack where ${where}`,
        params: [tenant, facilityRefs],
        prepare: true,
      }),
    ]),
  );
  return { rows, total: Number(count[0]?.total ?? 0) };
}

// --- container types -----------------------------------------------------------------------------

export const insertContainerTypeStatement = (
  tenant: string,
  kind: ContainerTypeKind,
  t: ContainerType,
): Sql => ({
  text: `insert into container_type (tenant_id, id, kind, version, created, last_modified, allowed_operative_types, doc)
    values ($1, $2::uuid, $3, $4, $5, $6, $7::text[], $8::jsonb)`,
  params: [
    tenant,
    t.id,
    kind,
    t.version,
    t.created,
    t.lastModified,
    t.allowedOperativeTypes ?? [],
    JSON.stringify(t),
  ],
  prepare: true,
});

export async function updateContainerType(db: Db, tenant: string, t: ContainerType): Promise<void> {
  await query(db, {
    text: `update container_type set version = $3, last_modified = $4, allowed_operative_types = $5::text[], doc = $6::jsonb
      where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, t.id, t.version, t.lastModified, t.allowedOperativeTypes ?? [], JSON.stringify(t)],
    prepare: true,
  });
}

export async function loadContainerType(
  db: Db,
  tenant: string,
  kind: ContainerTypeKind,
  id: string,
  forUpdate = false,
): Promise<ContainerType | undefined> {
  const rows = await query<{ doc: ContainerType }>(db, {
    text: `select doc from container_type where tenant_id = $1 and kind = $2 and id = $3::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, kind, id],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** One kind's types in id order, optionally those allowing an operative type (the caller pages). */
export async function listContainerTypes(
  db: Db,
  tenant: string,
  kind: ContainerTypeKind,
  operativeType: string | undefined,
): Promise<ContainerType[]> {
  const rows = await query<{ doc: ContainerType }>(db, {
    text: `select doc from container_type where tenant_id = $1 and kind = $2
      and ($3::text is null or allowed_operative_types @> array[$3::text]) order by id`,
    params: [tenant, kind, operativeType ?? null],
    prepare: true,
  });
  return rows.map((r) => r.doc);
}

// --- icons ---------------------------------------------------------------------------------------

export async function insertIcon(
  db: Db,
  tenant: string,
  id: string,
  icon: { fileName: string; mediaType: string; content: Buffer },
): Promise<void> {
  await query(db, {
    text: "insert into icon (tenant_id, id, file_name, media_type, content) values ($1, $2::uuid, $3, $4, $5)",
    params: [tenant, id, icon.fileName, icon.mediaType, icon.content],
    prepare: true,
  });
}

export async function deleteIcon(db: Db, tenant: string, id: string): Promise<void> {
  await query(db, {
    text: "delete from icon where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
}

export async function loadIcon(db: Db, tenant: string, id: string) {
  const rows = await query<{ file_name: string; media_type: string; content: Buffer }>(db, {
    text: "select file_name, media_type, content from icon where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

// --- the pick job projection ---------------------------------------------------------------------

export interface PickJobRef {
  id: string;
  facilityRef: string;
  status: string;
  version: number;
}

export async function loadPickJobRefs(db: Db, tenant: string, ids: string[]): Promise<PickJobRef[]> {
  return query<PickJobRef>(db, {
    text: `select id::text as id, facility_ref as "facilityRef", status, version from pick_job_ref
      where tenant_id = $1 and id = any($2::uuid[])`,
    params: [tenant, ids],
    prepare: true,
  });
}

/** A pick job's state as an event or picking's answer carries it; `facilityRef` absent: an event from before PickJob had it. */
export type PickJobEventRow = Omit<PickJobRef, "facilityRef"> & {
  tenant: string;
  facilityRef: string | undefined;
};

/**
 * Upserts pick jobs into the projection; a row only moves forward (a higher version). Each
 * (tenant, id) at most once per statement: callers pass the newest state of each. A row without a
 * facility moves the status and version of a job the projection has (its facility never changes)
 * and adds nothing otherwise.
 */
export function upsertPickJobRefsStatement(rows: PickJobEventRow[]): Sql {
  return {
    text: `with incoming (tenant_id, id, facility_ref, status, version) as (
        select * from unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::int[])
      ), moved as (
        update pick_job_ref p set status = i.status, version = i.version
          from incoming i
          where i.facility_ref is null and p.tenant_id = i.tenant_id and p.id = i.id and p.version < i.version
      )
      insert into pick_job_ref (tenant_id, id, facility_ref, status, version)
      select * from incoming where facility_ref is not null
      on conflict (tenant_id, id) do update
        set facility_ref = excluded.facility_ref, status = excluded.status, version = excluded.version
        where pick_job_ref.version < excluded.version`,
    params: [
      rows.map((r) => r.tenant),
      rows.map((r) => r.id),
      rows.map((r) => r.facilityRef ?? null),
      rows.map((r) => r.status),
      rows.map((r) => r.version),
    ],
    prepare: true,
  };
}
