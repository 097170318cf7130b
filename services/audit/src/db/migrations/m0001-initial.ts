import { Migration } from "@mikro-orm/migrations";

/**
 * Audit records. Every query index leads with tenant_id; the retention indexes on deletion and
 * anonymization dates serve the cross-tenant retention sweep.
 */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table audit_record (
        tenant_id text not null,
        id uuid not null,
        event_id uuid not null,
        entity_ref text not null,
        entity_type text not null,
        entity_version integer not null,
        entity_created timestamptz(3) not null,
        operation_name text not null,
        operation_start timestamptz(3) not null,
        actor_id text not null,
        actor_username text not null,
        client_api text not null,
        client_raw_info text not null,
        trace text not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        version integer not null default 1,
        anonymization_date timestamptz(3) not null,
        deletion_date timestamptz(3) not null,
        is_anonymized boolean not null default false,
        primary key (tenant_id, id)
      )`);
    this.addSql("create unique index audit_record_event_key on audit_record (tenant_id, event_id)");
    this.addSql("create index audit_record_created_idx on audit_record (tenant_id, created, id)");
    this.addSql("create index audit_record_entity_idx on audit_record (tenant_id, entity_ref, created, id)");
    this.addSql("create index audit_record_trace_idx on audit_record (tenant_id, trace, created, id)");
    this.addSql("create index audit_record_type_idx on audit_record (tenant_id, entity_type, created, id)");
    this.addSql("create index audit_record_deletion_idx on audit_record (deletion_date)");
    this.addSql(
      "create index audit_record_anonymization_idx on audit_record (anonymization_date) where not is_anonymized",
    );
  }
}
