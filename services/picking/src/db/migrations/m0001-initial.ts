import { Migration } from "@mikro-orm/migrations";
import { NO_TARGET_TIME } from "../sort-keys.ts";

/**
 * Pick jobs and pick runs. The document (`doc`) is the read model; the columns next to it are
 * derived from it on every write and exist for filtering, sorting and locking. Every index leads
 * with tenant_id. See the service README for the EXPLAIN of the typical queries.
 */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table pick_job (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        status text not null,
        facility_ref text not null,
        order_ref text null,
        tenant_order_id text null,
        short_id text not null,
        order_date timestamptz(3) null,
        target_time timestamptz(3) null,
        channel text not null,
        carrier_key text null,
        consumer_name text null,
        anonymized boolean not null default false,
        pick_run_ref uuid null,
        preferred_picking_methods text[] not null default '{}',
        tenant_article_ids text[] not null default '{}',
        transfer_ids text[] not null default '{}',
        zone_refs text[] not null default '{}',
        user_refs text[] not null default '{}',
        search_text text not null default '',
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    // Sort orders of the search (keyset: sort key, then id).
    this.addSql("create index pick_job_created_idx on pick_job (tenant_id, created, id)");
    this.addSql("create index pick_job_last_modified_idx on pick_job (tenant_id, last_modified, id)");
    // targetTime sorts with jobs without one last (ASC): the sort key is never null, so keyset
    // pagination is a row comparison the index can seek to (see usecases/pickjob-search.ts).
    this.addSql(
      `create index pick_job_target_time_idx on pick_job (tenant_id, (coalesce(target_time, ${NO_TARGET_TIME})), id)`,
    );
    this.addSql("create index pick_job_tenant_order_id_idx on pick_job (tenant_id, tenant_order_id, id)");
    // targetTime range filters (gt/lt/after/before) under any sort.
    this.addSql("create index pick_job_target_time_range_idx on pick_job (tenant_id, target_time)");
    // The scanner app's work list: one facility's jobs in some statuses, by target time.
    this.addSql(
      `create index pick_job_facility_status_target_idx on pick_job (tenant_id, facility_ref, status, (coalesce(target_time, ${NO_TARGET_TIME})), id)`,
    );
    this.addSql(
      "create index pick_job_facility_status_created_idx on pick_job (tenant_id, facility_ref, status, created, id)",
    );
    // Any other combination of equality / contains filters: one multi-column GIN index (btree_gin)
    // that the planner combines with bitmap scans.
    this.addSql(`
      create index pick_job_filters_idx on pick_job using gin (
        tenant_id, status, facility_ref, order_ref, tenant_order_id, channel, carrier_key,
        preferred_picking_methods, tenant_article_ids, transfer_ids, zone_refs, user_refs
      )`);
    // Regex / substring search on the consumer name and the list endpoint's searchTerm.
    this.addSql(
      "create index pick_job_consumer_name_trgm on pick_job using gin (consumer_name public.gin_trgm_ops)",
    );
    this.addSql(
      "create index pick_job_search_text_trgm on pick_job using gin (search_text public.gin_trgm_ops)",
    );
    this.addSql("create index pick_job_order_date_idx on pick_job (tenant_id, order_date, id)");

    this.addSql(`
      create table pick_run (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        status text not null,
        facility_ref text not null,
        doc jsonb not null,
        line_sources jsonb not null,
        primary key (tenant_id, id)
      )`);
    this.addSql(
      "create index pick_run_facility_status_idx on pick_run (tenant_id, facility_ref, status, id)",
    );
  }
}
