import { Migration } from "@mikro-orm/migrations";

/**
 * Load units, stacks, container types (operative container types and load unit types), their
 * icons, and the projection of picking's pick jobs. Each entity is its read-model document (`doc`)
 * plus the columns derived from it for filtering, locking and paging. Every index leads with
 * tenant_id; lists page by id (UUIDv7: creation order).
 */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table load_unit (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        status text not null,
        facility_ref text not null,
        pick_job_refs text[] not null,
        stack_ref text null,
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    // GET /api/loadunits (status filter, by id) and a pick job's load units (pickJobRef).
    this.addSql("create index load_unit_status_idx on load_unit (tenant_id, status, id)");
    this.addSql("create index load_unit_pick_jobs_idx on load_unit using gin (tenant_id, pick_job_refs)");

    this.addSql(`
      create table stack (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        facility_refs text[] not null,
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    this.addSql("create index stack_facility_refs_idx on stack using gin (tenant_id, facility_refs)");

    this.addSql(`
      create table container_type (
        tenant_id text not null,
        id uuid not null,
        kind text not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        allowed_operative_types text[] not null default '{}',
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    this.addSql("create index container_type_kind_idx on container_type (tenant_id, kind, id)");

    this.addSql(`
      create table icon (
        tenant_id text not null,
        id uuid not null,
        file_name text not null,
        media_type text not null,
        content bytea not null,
        created timestamptz(3) not null default now(),
        primary key (tenant_id, id)
      )`);

    // What load units need to know of picking's pick jobs, kept from its events (and filled by
    // one GetPickJob call for a job no event has brought yet). `version` orders the updates.
    this.addSql(`
      create table pick_job_ref (
        tenant_id text not null,
        id uuid not null,
        facility_ref text not null,
        status text not null,
        version integer not null,
        primary key (tenant_id, id)
      )`);
  }
}
