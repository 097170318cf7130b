/**
 * Reading and writing pick job / pick run rows. A row is the document plus columns derived from it
 * (`jobColumns`), recomputed on every write so filters and sorts never drift from the document.
 */
import { type Db, query, type Sql } from "@fop/kit/db/sql";
import type { PickingConfiguration } from "../domain/picking-config.ts";
import type { JsonObject, PickJob, PickRun, RunLineSource } from "../domain/types.ts";

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const obj = (v: unknown): JsonObject | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;

function personName(a: JsonObject | undefined): string {
  if (!a) return "";
  return [a.firstName, a.lastName].filter((x) => typeof x === "string" && x).join(" ");
}

/** The consumer's name: recipient, else postal, else invoice address; else the collect identifier. */
export function consumerName(job: PickJob): string | null {
  const details = obj(job.deliveryinformation.details);
  const shipping = obj(details?.shipping);
  for (const key of ["recipientaddress", "postalAddress", "invoiceAddress"]) {
    const name = personName(obj(shipping?.[key]));
    if (name) return name;
  }
  return str(obj(details?.collect)?.identifier) ?? str(shipping?.identifier);
}

/** Columns derived from a job document (see the migration for what each serves). */
export function jobColumns(job: PickJob) {
  const details = obj(job.deliveryinformation.details);
  const lines = job.pickLineItems;
  const articleIds = new Set<string>();
  const titles: string[] = [];
  for (const l of lines) {
    articleIds.add(l.article.tenantArticleId);
    titles.push(l.article.title);
  }
  const users = new Set<string>();
  for (const u of job.assignedUsers ?? []) {
    users.add(`assigned:${u.username}`);
    if (u.userId) users.add(`assigned:${u.userId}`);
  }
  for (const u of job.usersModificationHistory ?? []) users.add(`modified:${u.username}`);
  const name = consumerName(job);
  let lastUserModification = job.created;
  for (const u of job.usersModificationHistory ?? [])
    if (u.modificationDate > lastUserModification) lastUserModification = u.modificationDate;
  return {
    status: job.status,
    facility_ref: job.facilityRef,
    order_ref: job.orderRef ?? null,
    tenant_order_id: job.tenantOrderId ?? null,
    short_id: job.shortId,
    order_date: job.orderDate ?? null,
    target_time: job.deliveryinformation.targetTime ?? null,
    channel: job.deliveryinformation.channel,
    carrier_key: str(obj(details?.shipping)?.carrierKey),
    consumer_name: name,
    anonymized: job.anonymized,
    pick_run_ref: job.pickRunRef ?? null,
    preferred_picking_methods: job.preferredPickingMethods ?? [],
    tenant_article_ids: [...articleIds],
    transfer_ids: (job.transfers ?? []).map((t) => t.id),
    zone_refs: (job.pickingZones ?? []).map((z) => z.zoneRef),
    user_refs: [...users],
    last_user_modification: lastUserModification,
    // Lower-cased haystack of the list endpoint's searchTerm.
    search_text: [job.tenantOrderId, job.shortId, name, ...articleIds, ...titles]
      .filter(Boolean)
      .join(" ")
      .toLowerCase(),
  };
}

const JOB_COLUMNS = Object.keys(
  jobColumns({
    created: "",
    deliveryinformation: { channel: "SHIPPING" },
    pickLineItems: [],
  } as unknown as PickJob),
);

const JOB_CASTS: Record<string, string> = {
  order_date: "timestamptz",
  target_time: "timestamptz",
  last_user_modification: "timestamptz",
  pick_run_ref: "uuid",
  preferred_picking_methods: "text[]",
  tenant_article_ids: "text[]",
  transfer_ids: "text[]",
  zone_refs: "text[]",
  user_refs: "text[]",
};

const cast = (c: string) => (JOB_CASTS[c] ? `::${JOB_CASTS[c]}` : "");
// The statements are the same for every job: built once.
const INSERT_JOB = `insert into pick_job (tenant_id, id, version, created, last_modified, doc, ${JOB_COLUMNS.join(", ")})
  values ($1, $2::uuid, $3, $4::timestamptz, $5::timestamptz, $6::jsonb, ${JOB_COLUMNS.map((c, i) => `$${7 + i}${cast(c)}`).join(", ")})`;
const UPDATE_JOB = `update pick_job set version = $3, last_modified = $4::timestamptz, doc = $5::jsonb,
    ${JOB_COLUMNS.map((c, i) => `${c} = $${6 + i}${cast(c)}`).join(", ")}
  where tenant_id = $1 and id = $2::uuid`;

/** The derived column values of `job`, in JOB_COLUMNS order. */
function columnValues(job: PickJob): unknown[] {
  const cols = jobColumns(job) as Record<string, unknown>;
  return JOB_COLUMNS.map((c) => cols[c]);
}

/** The INSERT of a new job (for Outbox.write, which adds its events in the same statement). */
export function insertJobStatement(tenant: string, job: PickJob): Sql {
  return {
    text: INSERT_JOB,
    params: [
      tenant,
      job.id,
      job.version,
      job.created,
      job.lastModified,
      JSON.stringify(job),
      ...columnValues(job),
    ],
    prepare: true,
  };
}

/** Writes a changed job; the caller holds the row lock (loadJob with forUpdate). */
export async function updateJob(db: Db, tenant: string, job: PickJob): Promise<void> {
  await query(db, {
    text: UPDATE_JOB,
    params: [tenant, job.id, job.version, job.lastModified, JSON.stringify(job), ...columnValues(job)],
    prepare: true,
  });
}

export async function loadJob(
  db: Db,
  tenant: string,
  id: string,
  forUpdate: boolean,
): Promise<PickJob | undefined> {
  const rows = await query<{ doc: PickJob }>(db, {
    text: `select doc from pick_job where tenant_id = $1 and id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** A stored read model as Postgres renders it: the JSON text passed on as it is, never parsed. */
export interface StoredDocument {
  id: string;
  version: number;
  status: string;
  /** The job's facility (its derived column), for the message's typed envelope. */
  facilityRef: string;
  json: string;
}

const JOB_DOCUMENT =
  'select id, version, status, facility_ref as "facilityRef", doc::text as json from pick_job';

/** A job's document as JSON text (a read: nothing parses or re-serializes it). */
export async function loadJobDocument(
  db: Db,
  tenant: string,
  id: string,
): Promise<StoredDocument | undefined> {
  const rows = await query<StoredDocument>(db, {
    text: `${JOB_DOCUMENT} where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

/** The tenant's jobs among `ids` (well-formed uuids) as JSON text, in id order: one statement for all. */
export async function loadJobDocuments(db: Db, tenant: string, ids: string[]): Promise<StoredDocument[]> {
  return query<StoredDocument>(db, {
    text: `${JOB_DOCUMENT} where tenant_id = $1 and id = any($2::uuid[]) order by id`,
    params: [tenant, ids],
    prepare: true,
  });
}

/** Several jobs, locked in id order (so concurrent runs over overlapping jobs cannot deadlock). */
export async function loadJobs(
  db: Db,
  tenant: string,
  ids: string[],
  forUpdate: boolean,
): Promise<PickJob[]> {
  if (ids.length === 0) return [];
  const rows = await query<{ doc: PickJob }>(db, {
    text: `select doc from pick_job where tenant_id = $1 and id = any($2::uuid[]) order by id${forUpdate ? " for update" : ""}`,
    params: [tenant, ids],
    prepare: true,
  });
  return rows.map((r) => r.doc);
}

export async function insertRun(db: Db, tenant: string, run: PickRun): Promise<void> {
  const { lineSources, ...doc } = run;
  await query(db, {
    text: `insert into pick_run (tenant_id, id, version, created, last_modified, status, facility_ref, doc, line_sources)
           values ($1, $2::uuid, $3, $4::timestamptz, $5::timestamptz, $6, $7, $8::jsonb, $9::jsonb)`,
    params: [
      tenant,
      run.id,
      run.version,
      run.created,
      run.lastModified,
      run.status,
      run.facilityRef,
      JSON.stringify(doc),
      JSON.stringify(lineSources),
    ],
    prepare: true,
  });
}

export async function updateRun(db: Db, tenant: string, run: PickRun): Promise<void> {
  const { lineSources, ...doc } = run;
  await query(db, {
    text: `update pick_run set version = $3, last_modified = $4::timestamptz, status = $5, doc = $6::jsonb,
             line_sources = $7::jsonb
           where tenant_id = $1 and id = $2::uuid`,
    params: [
      tenant,
      run.id,
      run.version,
      run.lastModified,
      run.status,
      JSON.stringify(doc),
      JSON.stringify(lineSources),
    ],
    prepare: true,
  });
}

export async function loadRun(
  db: Db,
  tenant: string,
  id: string,
  forUpdate: boolean,
): Promise<PickRun | undefined> {
  const rows = await query<{
    doc: Omit<PickRun, "lineSources">;
    line_sources: Record<string, RunLineSource[]>;
  }>(db, {
    text: `select doc, line_sources from pick_run where tenant_id = $1 and id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  const row = rows[0];
  return row ? { ...row.doc, lineSources: row.line_sources } : undefined;
}

// --- picking configuration (one per tenant) ---------------------------------------------------------

export async function loadPickingConfiguration(
  db: Db,
  tenant: string,
  forUpdate = false,
): Promise<PickingConfiguration | undefined> {
  const rows = await query<{ doc: PickingConfiguration }>(db, {
    text: `select doc from picking_configuration where tenant_id = $1${forUpdate ? " for update" : ""}`,
    params: [tenant],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** Inserts the tenant's configuration unless it has one (a concurrent first PATCH won); true when inserted. */
export async function insertPickingConfigurationIfAbsent(
  db: Db,
  tenant: string,
  c: PickingConfiguration,
): Promise<boolean> {
  const rows = await query(db, {
    text: `insert into picking_configuration (tenant_id, version, doc) values ($1, $2, $3::jsonb)
      on conflict (tenant_id) do nothing returning 1`,
    params: [tenant, c.version, JSON.stringify(c)],
    prepare: true,
  });
  return rows.length > 0;
}

export async function updatePickingConfiguration(db: Db, tenant: string, c: PickingConfiguration) {
  await query(db, {
    text: "update picking_configuration set version = $2, doc = $3::jsonb where tenant_id = $1",
    params: [tenant, c.version, JSON.stringify(c)],
    prepare: true,
  });
}
