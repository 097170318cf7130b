import { Migration } from "@mikro-orm/migrations";

/**
 * Notification center configurations (one per tenant, `facility_ref` ''; one per facility), the
 * stored notifications (one per event and CLIENT channel), webhook subscriptions (the signing secret
 * sealed), and deliveries: one row per e-mail receiver or webhook subscription and event, retried
 * with backoff until DELIVERED, or DEAD after the last attempt (the dead letters).
 */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table notification_config (
        tenant_id text not null,
        facility_ref text not null,
        version integer not null,
        doc jsonb not null,
        primary key (tenant_id, facility_ref)
      )`);
    this.addSql(`
      create table notification (
        tenant_id text not null,
        id uuid not null,
        event_id uuid not null,
        channel_id text not null,
        event text not null,
        category text not null,
        status text not null,
        priority_label text not null,
        priority_sequence integer not null,
        facility_ref text null,
        created timestamptz not null,
        doc jsonb not null,
        primary key (tenant_id, id),
        constraint notification_once unique (tenant_id, event_id, channel_id)
      )`);
    this.addSql("create index notification_created_idx on notification (tenant_id, created, id)");
    this.addSql("create index notification_status_idx on notification (tenant_id, status, id)");
    // A facility's notifications, newest first (the back office's view; the search's usual filter).
    this.addSql(
      "create index notification_facility_idx on notification (tenant_id, facility_ref, created, id) where facility_ref is not null",
    );
    this.addSql(`
      create table subscription (
        tenant_id text not null,
        id uuid not null,
        event text not null,
        created timestamptz not null,
        secret bytea not null,
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    this.addSql("create index subscription_event_idx on subscription (tenant_id, event)");
    this.addSql(`
      create table delivery (
        id uuid primary key,
        tenant_id text not null,
        kind text not null,
        target_id text not null,
        event_id uuid not null,
        event text not null,
        recipient text not null,
        payload jsonb not null,
        state text not null default 'PENDING',
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        last_status integer null,
        last_error text null,
        created timestamptz not null default clock_timestamp(),
        finished_at timestamptz null,
        constraint delivery_once unique (kind, target_id, event_id, recipient)
      )`);
    this.addSql("create index delivery_due_idx on delivery (next_attempt_at) where state = 'PENDING'");
    this.addSql(
      "create index delivery_dead_idx on delivery (tenant_id, target_id, finished_at desc, id) where state = 'DEAD'",
    );
  }
}
