import { Migration } from "@mikro-orm/migrations";

/**
 * Reasons (cancelation reasons and reroute descriptions, told apart by `action`). The document
 * (`doc`) plus the columns derived from it for lookups and paging; a reason's text is unique within
 * its kind (a second POST of it answers the first).
 */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table reason (
        tenant_id text not null,
        id uuid not null,
        action text not null,
        version integer not null,
        reason text not null,
        doc jsonb not null,
        primary key (tenant_id, id),
        constraint reason_text_unique unique (tenant_id, action, reason)
      )`);
    this.addSql("create index reason_action_idx on reason (tenant_id, action, id)");
  }
}
