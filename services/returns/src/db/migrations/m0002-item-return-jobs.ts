import { Migration } from "@mikro-orm/migrations";

/**
 * Item return jobs: the document (item returns inside it: they are versioned with their job) plus
 * the columns the list filters read, derived from it in the same statement.
 */
export class M0002ItemReturnJobs extends Migration {
  override name = "m0002-item-return-jobs";

  override up(): void {
    this.addSql(`
      create table item_return_job (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        status text not null,
        anonymized boolean not null default false,
        origin_facility_refs text[] not null,
        return_facility_refs text[] not null default '{}',
        scannable_codes text[] not null default '{}',
        item_return_statuses text[] not null default '{}',
        item_return_scannable_codes text[] not null default '{}',
        search_text text not null default '',
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    this.addSql("create index item_return_job_status_idx on item_return_job (tenant_id, status, id)");
    this.addSql(
      "create index item_return_job_facilities_idx on item_return_job using gin (tenant_id, origin_facility_refs, return_facility_refs)",
    );
  }
}
