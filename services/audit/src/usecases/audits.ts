/** Audit use cases: record an event, list, search, and the retention sweep. */

import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { AuditListFilters } from "@fop/contracts/audit";
import type { RequestContext } from "@fop/kit/context";
import { query, type Sql } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { invalid } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { runSearch, type SearchPage, type SearchParams, type SearchResource } from "@fop/kit/search/keyset";
import { SqlBuilder } from "@fop/kit/search/sql-builder";
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { SCHEMA } from "../db/orm.ts";
import { ANONYMIZED, type AuditedEvent, type AuditRecord, auditFromEvent } from "../domain/audit.ts";
import type { AuditDeps } from "./deps.ts";

/** An audit_record row as node-postgres returns it (timestamptz as Date). */
type AuditRow = {
  id: string;
  event_id: string;
  entity_ref: string;
  entity_type: string;
  entity_version: number;
  entity_created: Date;
  operation_name: string;
  operation_start: Date;
  actor_id: string;
  actor_username: string;
  client_api: string;
  client_raw_info: string;
  trace: string;
  created: Date;
  last_modified: Date;
  version: number;
  anonymization_date: Date;
  deletion_date: Date;
  is_anonymized: boolean;
};

export const toAudit = (r: AuditRow): AuditRecord => ({
  id: r.id,
  eventId: r.event_id,
  entityRef: r.entity_ref,
  entityType: r.entity_type,
  entityVersion: r.entity_version,
  entityCreated: r.entity_created,
  operationName: r.operation_name,
  operationStart: r.operation_start,
  actorId: r.actor_id,
  actorUsername: r.actor_username,
  clientApi: r.client_api,
  clientRawInfo: r.client_raw_info,
  trace: r.trace,
  created: r.created,
  lastModified: r.last_modified,
  version: r.version,
  anonymizationDate: r.anonymization_date,
  deletionDate: r.deletion_date,
  isAnonymized: r.is_anonymized,
});

/** The audit_record columns a record is written with, in the order of RECORD_CASTS. */
const RECORD_COLUMNS = [
  "tenant_id",
  "id",
  "event_id",
  "entity_ref",
  "entity_type",
  "entity_version",
  "entity_created",
  "operation_name",
  "operation_start",
  "actor_id",
  "actor_username",
  "client_api",
  "client_raw_info",
  "trace",
  "created",
  "last_modified",
  "version",
  "anonymization_date",
  "deletion_date",
  "is_anonymized",
] as const;
const RECORD_CASTS = [
  "text",
  "uuid",
  "uuid",
  "text",
  "text",
  "int",
  "timestamptz",
  "text",
  "timestamptz",
  "text",
  "text",
  "text",
  "text",
  "text",
  "timestamptz",
  "timestamptz",
  "int",
  "timestamptz",
  "timestamptz",
  "boolean",
];
/**
 * The records of a batch of events, one statement (column arrays: one parameter per column, one
 * element per record). Each event is recorded once: a redelivered one meets the unique
 * (tenant_id, event_id) key and is skipped, so the consumer needs no inbox row.
 */
const INSERT_RECORDS = `insert into ${SCHEMA}.audit_record (${RECORD_COLUMNS.join(", ")})
  select * from unnest(${RECORD_CASTS.map((c, i) => `$${i + 1}::${c}[]`).join(", ")})
  on conflict (tenant_id, event_id) do nothing`;

/** An event without tenant, entity or type can never become a record (poison). */
export function checkEvent(event: EventEnvelope): void {
  if (!event.tenant || !event.entityRef || !event.type || !isUuid(event.id)) {
    throw invalid("INVALID_EVENT", `event ${event.id} lacks tenant, entity or type`);
  }
}

/** The envelope's fields an audit record is made of, as plain values. */
function audited(e: EventEnvelope): AuditedEvent {
  return {
    id: e.id,
    type: e.type,
    entityRef: e.entityRef,
    entityType: e.entityType,
    entityVersion: Number(e.entityVersion),
    entityCreated: e.entityCreated && timestampDate(e.entityCreated),
    occurredAt: e.occurredAt && timestampDate(e.occurredAt),
    actor: e.actor,
    client: e.client,
    traceId: e.traceId,
  };
}

/** The statement that records a batch of (checked) events (see INSERT_RECORDS). */
export function recordEventsStatement(deps: AuditDeps, events: EventEnvelope[]): Sql {
  const rows = events.map((event) => {
    const r = auditFromEvent(audited(event), deps.newId(), deps.now(), deps.policy);
    const iso = (d: Date) => d.toISOString();
    return [
      event.tenant,
      r.id,
      r.eventId,
      r.entityRef,
      r.entityType,
      r.entityVersion,
      iso(r.entityCreated),
      r.operationName,
      iso(r.operationStart),
      r.actorId,
      r.actorUsername,
      r.clientApi,
      r.clientRawInfo,
      r.trace,
      iso(r.created),
      iso(r.lastModified),
      r.version,
      iso(r.anonymizationDate),
      iso(r.deletionDate),
      r.isAnonymized,
    ];
  });
  return {
    text: INSERT_RECORDS,
    params: RECORD_COLUMNS.map((_, c) => rows.map((row) => row[c])),
    prepare: true,
  };
}

/** The deprecated list: id order, optional filters, with the total of matches. */
export async function listAudits(
  deps: AuditDeps,
  ctx: RequestContext,
  f: AuditListFilters,
  page: { size: number; startAfterId: string },
) {
  if (page.startAfterId && !isUuid(page.startAfterId))
    throw invalid("INVALID_ID", "startAfterId must be the id of an audit.", "startAfterId");
  const filter = (b: SqlBuilder) => {
    const parts = [`t.tenant_id = ${b.param(ctx.tenant, "text")}`];
    if (f.entityRef !== undefined) parts.push(`t.entity_ref = ${b.param(f.entityRef, "text")}`);
    if (f.entityType !== undefined) parts.push(`t.entity_type = ${b.param(f.entityType, "text")}`);
    if (f.trace !== undefined) parts.push(`t.trace = ${b.param(f.trace, "text")}`);
    return parts.join(" and ");
  };
  // Page and total in one statement (one snapshot): two statements on the pool could see a record
  // arrive between them (a total lower than the page). The lateral join keeps the count's row when
  // the page is empty.
  const b = new SqlBuilder();
  const counted = filter(b);
  const conditions = [filter(b)];
  if (page.startAfterId) conditions.push(`t.id > ${b.param(page.startAfterId, "uuid")}`);
  const rows = await query<AuditRow & { __total: number }>(deps.db, {
    text: `select c.__total, p.* from (select count(*)::int as __total from ${SCHEMA}.audit_record t where ${counted}) c
      left join lateral (select t.* from ${SCHEMA}.audit_record t where ${conditions.join(" and ")} order by t.id limit ${b.param(page.size, "int")}) p on true
      order by p.id`,
    params: b.params,
  });
  return {
    audits: rows.filter((r) => r.id !== null).map(({ __total: _, ...row }) => toAudit(row as AuditRow)),
    total: rows[0]?.__total ?? 0,
  };
}

/** What `POST /api/audits/search` may filter and sort on. */
export const auditSearch: SearchResource = {
  table: `${SCHEMA}.audit_record`,
  select: "t.*",
  fields: {
    entityRef: { kind: "string", column: "t.entity_ref", ops: ["eq", "notEq", "in", "notIn"] },
    entityType: { kind: "string", column: "t.entity_type", ops: ["eq", "notEq", "in"] },
    trace: { kind: "string", column: "t.trace", ops: ["eq", "notEq", "in", "notIn"] },
  },
  sorts: { created: { expr: "t.created", type: "timestamptz", nullable: false } },
};

export async function searchAudits(
  deps: AuditDeps,
  ctx: RequestContext,
  params: SearchParams,
): Promise<SearchPage<AuditRecord>> {
  const page = await runSearch<AuditRow>(deps.db, ctx.tenant, auditSearch, params, {
    cursors: deps.cursors,
    now: deps.now(),
  });
  return { ...page, rows: page.rows.map(toAudit) };
}

/**
 * Retention: deletes records past their deletion date and anonymizes personal data past the
 * anonymization date, in batches across tenants. Returns how many rows each step touched.
 *
 * Every replica runs it (AUDIT_SWEEP_INTERVAL_MS), so sweeps overlap: each takes its rows with FOR
 * UPDATE SKIP LOCKED, so two sweeps touch disjoint rows and neither waits for the other. Without
 * it, a sweep that waited for another's row locks anonymized the rows again once they were
 * released (Postgres rechecks the locked row, not the subquery that chose it): version 3, a
 * change that never happened (audit.service.test.ts, "sweeps of several replicas at once").
 */
export async function sweepRetention(
  deps: AuditDeps,
  batch = 1000,
): Promise<{ deleted: number; anonymized: number }> {
  const now = deps.now();
  return inTransaction(deps.db, async (tx) => {
    const b = new SqlBuilder();
    const deleted = await query(tx, {
      text: `delete from ${SCHEMA}.audit_record where (tenant_id, id) in (select tenant_id, id from ${SCHEMA}.audit_record where deletion_date <= ${b.param(now, "timestamptz")} limit ${batch} for update skip locked) returning 1`,
      params: b.params,
    });
    const a = new SqlBuilder();
    const anonymized = await query(tx, {
      text: `update ${SCHEMA}.audit_record set actor_username = ${a.param(ANONYMIZED, "text")}, client_raw_info = '', is_anonymized = true, version = version + 1, last_modified = ${a.param(now, "timestamptz")}
             where (tenant_id, id) in (select tenant_id, id from ${SCHEMA}.audit_record where not is_anonymized and anonymization_date <= ${a.param(now, "timestamptz")} limit ${batch} for update skip locked) returning 1`,
      params: a.params,
    });
    return { deleted: deleted.length, anonymized: anonymized.length };
  });
}
