/** Reading and writing rows: the document plus the columns derived from it. Parameterised SQL only. */

import type { ItemReturnJobListFilters, ItemReturnListFilters } from "@fop/contracts/returns";
import { type Db, query } from "@fop/kit/db/sql";
import { readSnapshot } from "@fop/kit/db/tx";
import type { HandoverConfiguration } from "../domain/handover-config.ts";
import type { ItemReturnJob } from "../domain/job.ts";
import type { Parcel } from "../domain/parcel.ts";
import type { ReturnConfiguration } from "../domain/return-config.ts";
import type { Reason, ReasonAction } from "../domain/types.ts";

/** Inserts a reason unless its kind has one with the same text; true when inserted. */
export async function insertReasonIfNew(db: Db, tenant: string, r: Reason): Promise<boolean> {
  const rows = await query(db, {
    text: `insert into reason (tenant_id, id, action, version, reason, doc)
      values ($1, $2::uuid, $3, $4, $5, $6::jsonb) on conflict (tenant_id, action, md5(reason)) do nothing returning 1`,
    params: [tenant, r.id, r.action, r.version, r.reason, JSON.stringify(r)],
    prepare: true,
  });
  return rows.length > 0;
}

export async function loadReason(
  db: Db,
  tenant: string,
  action: ReasonAction,
  id: string,
  forUpdate = false,
): Promise<Reason | undefined> {
  const rows = await query<{ doc: Reason }>(db, {
    text: `select doc from reason where tenant_id = $1 and action = $2 and id = $3::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, action, id],
    prepare: true,
  });
  return rows[0]?.doc;
}

export async function loadReasonByText(
  db: Db,
  tenant: string,
  action: ReasonAction,
  reason: string,
): Promise<Reason | undefined> {
  const rows = await query<{ doc: Reason }>(db, {
    text: "select doc from reason where tenant_id = $1 and action = $2 and md5(reason) = md5($3) and reason = $3",
    params: [tenant, action, reason],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** One page by id (creation order), one more row to tell whether a next page exists, and the count. */
export async function listReasons(
  db: Db,
  tenant: string,
  action: ReasonAction,
  page: { size: number; startAfterId: string },
): Promise<{ rows: Reason[]; hasNextPage: boolean; total: number }> {
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<{ doc: Reason }>(tx, {
        text: `select doc from reason where tenant_id = $1 and action = $2 and ($3::uuid is null or id > $3::uuid)
        order by id limit $4`,
        params: [tenant, action, page.startAfterId || null, page.size + 1],
        prepare: true,
      }),
      query<{ total: string }>(tx, {
        text: "select count(*) as total from reason where tenant_id = $1 and action = $2",
        params: [tenant, action],
        prepare: true,
      }),
    ]),
  );
  return {
    rows: rows.slice(0, page.size).map((r) => r.doc),
    hasNextPage: rows.length > page.size,
    total: Number(count[0]?.total ?? 0),
  };
}

/** Writes a changed reason (its version was checked under the row lock). */
export async function updateReason(db: Db, tenant: string, r: Reason): Promise<void> {
  await query(db, {
    text: "update reason set version = $3, reason = $4, doc = $5::jsonb where tenant_id = $1 and id = $2::uuid",
    params: [tenant, r.id, r.version, r.reason, JSON.stringify(r)],
    prepare: true,
  });
}

export async function deleteReason(db: Db, tenant: string, id: string): Promise<void> {
  await query(db, {
    text: "delete from reason where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
}

// --- item return jobs ----------------------------------------------------------------------------

/** Columns derived from the document `d` (jsonb) in SQL, so filters never drift from what clients read. */
const JOB_COLUMNS = `(d->>'version')::int, d->>'status', coalesce((d->>'anonymized')::boolean, false),
  array(select jsonb_array_elements_text(d->'originFacilityRefs')),
  array(select distinct r->>'returnFacilityRef' from jsonb_array_elements(d->'itemReturns') r where r ? 'returnFacilityRef'),
  array(select jsonb_array_elements_text(coalesce(d->'scannableCodes', '[]'))),
  array(select distinct r->>'status' from jsonb_array_elements(d->'itemReturns') r),
  array(select jsonb_array_elements_text(coalesce(r->'scannableCodes', '[]')) from jsonb_array_elements(d->'itemReturns') r),
  lower(concat_ws(' ', d->>'shortId', d->>'tenantOrderId', d->>'id',
    (select string_agg(concat_ws(' ', a->>'firstName', a->>'lastName', a->>'email', a->>'postalCode', a->>'city'), ' ')
     from jsonb_array_elements(d->'consumerAddresses') a))),
  d`;

export async function insertJob(db: Db, tenant: string, job: ItemReturnJob): Promise<void> {
  await query(db, {
    text: `insert into item_return_job (tenant_id, id, version, status, anonymized, origin_facility_refs,
        return_facility_refs, scannable_codes, item_return_statuses, item_return_scannable_codes, search_text, doc)
      select $1, (d->>'id')::uuid, ${JOB_COLUMNS} from (select $2::jsonb as d) x`,
    params: [tenant, JSON.stringify(job)],
    prepare: true,
  });
}

export async function updateJob(db: Db, tenant: string, job: ItemReturnJob): Promise<void> {
  await query(db, {
    text: `update item_return_job j set (version, status, anonymized, origin_facility_refs, return_facility_refs,
        scannable_codes, item_return_statuses, item_return_scannable_codes, search_text, doc) =
      (select ${JOB_COLUMNS} from (select $3::jsonb as d) x)
      where j.tenant_id = $1 and j.id = $2::uuid`,
    params: [tenant, job.id, JSON.stringify(job)],
    prepare: true,
  });
}

/** Inserts an item return's parcel (a taken tenantParcelId: parcel_tenant_parcel_id_key). */
export async function insertParcel(
  db: Db,
  tenant: string,
  jobId: string,
  itemReturnId: string,
  p: Parcel,
): Promise<void> {
  await query(db, {
    text: `insert into parcel (tenant_id, id, item_return_job_id, item_return_id, status, tenant_parcel_id, doc)
      values ($1, $2::uuid, $3::uuid, $4::uuid, $5, $6, $7::jsonb)`,
    params: [tenant, p.id, jobId, itemReturnId, p.status, p.tenantParcelId ?? null, JSON.stringify(p)],
    prepare: true,
  });
}

/** A job as stored: the envelope fields and the document's text, sent on as it is (no parse). */
export interface StoredJob {
  id: string;
  version: number;
  status: string;
  json: string;
}
const STORED_JOB = "id, version, status, doc::text as json";

export async function loadStoredJob(db: Db, tenant: string, id: string): Promise<StoredJob | undefined> {
  const rows = await query<StoredJob>(db, {
    text: `select ${STORED_JOB} from item_return_job where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

export async function loadJob(
  db: Db,
  tenant: string,
  id: string,
  forUpdate = false,
): Promise<ItemReturnJob | undefined> {
  const rows = await query<{ doc: ItemReturnJob }>(db, {
    text: `select doc from item_return_job where tenant_id = $1 and id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** One page by id (creation order) of the jobs matching every given filter, and their number. */
export async function listJobs(
  db: Db,
  tenant: string,
  f: ItemReturnJobListFilters,
  page: { size: number; startAfterId: string },
): Promise<{ rows: StoredJob[]; total: number }> {
  const where = `tenant_id = $1
    and ($2::text is null or $2 = any(origin_facility_refs) or $2 = any(return_facility_refs))
    and (cardinality($3::text[]) = 0 or status = any($3))
    and (cardinality($4::text[]) = 0 or item_return_statuses && $4)
    and (cardinality($5::text[]) = 0 or scannable_codes && $5)
    and (cardinality($6::text[]) = 0 or item_return_scannable_codes && $6)
    and ($7::text is null or strpos(search_text, lower($7)) > 0)
    and ($8::boolean is null or anonymized = $8)
    and ($9::text is null or doc->>'tenantOrderId' = $9)`;
  const params = [
    tenant,
    f.facilityId || null, // ?facilityId= (empty) is no filter
    f.itemReturnJobStatus ?? [],
    f.itemReturnStatus ?? [],
    f.itemReturnJobScannableCodes ?? [],
    f.itemReturnScannableCodes ?? [],
    f.searchTerm ?? null,
    f.anonymized ?? null,
    f.tenantOrderId ?? null,
  ];
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<StoredJob>(tx, {
        text: `select ${STORED_JOB} from item_return_job where ${where} and ($10::uuid is null or id > $10::uuid) order by id limit $11`,
        params: [...params, page.startAfterId || null, page.size],
        prepare: true,
      }),
      query<{ total: string }>(tx, {
        text: `select count(*) as total from item_return_job where ${where}`,
        params,
        prepare: true,
      }),
    ]),
  );
  return { rows, total: Number(count[0]?.total ?? 0) };
}

/** Marks the job's refund as triggered; true only for the call that set it (the event is recorded once). */
export async function markRefundTriggered(db: Db, tenant: string, id: string, at: Date): Promise<boolean> {
  const rows = await query(db, {
    text: `update item_return_job set refund_triggered_at = $3
      where tenant_id = $1 and id = $2::uuid and refund_triggered_at is null returning 1`,
    params: [tenant, id, at.toISOString()],
    prepare: true,
  });
  return rows.length > 0;
}

/**
 * GET /api/itemreturns: item returns across the tenant's jobs, by item return id (creation order),
 * each with its job's id; the filters read the job document in SQL.
 */
export async function listItemReturnsAcrossJobs(
  db: Db,
  tenant: string,
  f: ItemReturnListFilters,
  page: { size: number; startAfterId: string },
): Promise<{ rows: { jobId: string; itemReturn: Record<string, unknown> }[]; total: number }> {
  const from = `from item_return_job j cross join lateral jsonb_array_elements(j.doc->'itemReturns') r
    where j.tenant_id = $1
      and (cardinality($2::text[]) = 0 or r->>'status' = any($2))
      and (cardinality($3::text[]) = 0 or exists (
        select 1 from jsonb_array_elements(r->'returnedLineItems' || coalesce(r->'returnedNotReturnableLineItems', '[]')) l
        where l->>'status' = any($3)))
      and (cardinality($4::text[]) = 0 or r->>'returnFacilityRef' = any($4) or j.origin_facility_refs && $4)
      and ($5::boolean is null or j.anonymized = $5)
      and ($6::text is null or strpos(lower(concat_ws(' ', r->>'id', j.search_text,
        (select string_agg(concat_ws(' ', l->>'tenantArticleId', l->'article'->>'tenantArticleId', l->'article'->>'title'), ' ')
         from jsonb_array_elements(j.doc->'returnableLineItems' || coalesce(j.doc->'notReturnableLineItems', '[]')) l))),
        lower($6)) > 0)`;
  const params = [
    tenant,
    f.itemReturnStatus ?? [],
    f.itemReturnLineItemStatus ?? [],
    f.facilityRefs ?? [],
    f.anonymized ?? null,
    f.searchTerm ?? null,
  ];
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<{ job_id: string; item_return: Record<string, unknown> }>(tx, {
        text: `select j.id::text as job_id, r as item_return ${from}
        and ($7::text is null or r->>'id' > $7) order by r->>'id' limit $8`,
        params: [...params, page.startAfterId || null, page.size],
        prepare: true,
      }),
      query<{ total: string }>(tx, { text: `select count(*) as total ${from}`, params, prepare: true }),
    ]),
  );
  return {
    rows: rows.map((r) => ({ jobId: r.job_id, itemReturn: r.item_return })),
    total: Number(count[0]?.total ?? 0),
  };
}

// --- per-tenant configurations (return, handover) -----------------------------------------------

/**
 * A per-tenant configuration document in its own table `(tenant_id primary key, version, doc)`:
 * load (optionally locked), insert unless present, update. The operations upsertSingleton takes.
 */
function configurationRows<T extends { version: number }>(
  table: "return_configuration" | "handover_configuration",
) {
  return {
    async load(db: Db, tenant: string, forUpdate = false): Promise<T | undefined> {
      const rows = await query<{ doc: T }>(db, {
        text: `select doc from ${table} where tenant_id = $1${forUpdate ? " for update" : ""}`,
        params: [tenant],
        prepare: true,
      });
      return rows[0]?.doc;
    },
    /** Inserts the tenant's configuration unless it has one (a concurrent first PUT won); true when inserted. */
    async insertIfAbsent(db: Db, tenant: string, c: T): Promise<boolean> {
      const rows = await query(db, {
        text: `insert into ${table} (tenant_id, version, doc) values ($1, $2, $3::jsonb)
          on conflict (tenant_id) do nothing returning 1`,
        params: [tenant, c.version, JSON.stringify(c)],
        prepare: true,
      });
      return rows.length > 0;
    },
    async update(db: Db, tenant: string, c: T): Promise<void> {
      await query(db, {
        text: `update ${table} set version = $2, doc = $3::jsonb where tenant_id = $1`,
        params: [tenant, c.version, JSON.stringify(c)],
        prepare: true,
      });
    },
  };
}

export const returnConfigurationRows = configurationRows<ReturnConfiguration>("return_configuration");
export const handoverConfigurationRows = configurationRows<HandoverConfiguration>("handover_configuration");
