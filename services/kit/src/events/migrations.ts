/**
 * Kit tables every service carries in its own schema: the outbox (events waiting to be published),
 * the inbox (event ids a consumer has processed) and dead letters (events a consumer gave up on).
 * A service lists these migrations before its own. These system tables are not tenant-scoped:
 * the relay and consumers work across tenants.
 */
import { Migration } from "@mikro-orm/migrations";
import type { MigrationObject } from "@mikro-orm/postgresql";
import { DEADLINE_SETTING, DEADLINE_SQLSTATE } from "../deadline.ts";

export class KitEvents0001 extends Migration {
  override name = "kit-events-0001";

  override up(): void {
    this.addSql(`
      create table outbox (
        id uuid primary key,
        subject text not null,
        payload bytea not null,
        headers jsonb not null default '{}',
        created timestamptz not null default clock_timestamp(),
        published_at timestamptz null
      )`);
    this.addSql("create index outbox_pending_idx on outbox (created, id) where published_at is null");
    this.addSql("create index outbox_published_idx on outbox (published_at) where published_at is not null");
    this.addSql(`
      create table inbox (
        consumer text not null,
        event_id uuid not null,
        processed_at timestamptz not null default clock_timestamp(),
        primary key (consumer, event_id)
      )`);
    this.addSql("create index inbox_processed_idx on inbox (processed_at)");
    this.addSql(`
      create table dead_letter (
        id uuid primary key,
        consumer text not null,
        event_id text null,
        subject text not null,
        payload bytea not null,
        error text not null,
        deliveries integer not null,
        failed_at timestamptz not null default clock_timestamp()
      )`);
    this.addSql("create index dead_letter_consumer_idx on dead_letter (consumer, failed_at)");
  }
}

/**
 * A commit-time deadline check for every write that records events: a deferred constraint trigger on
 * the outbox runs when the transaction commits (after every statement, CTE and lock wait) and fails
 * it when the transaction-local setting `fop.deadline` (DEADLINE_SETTING) (epoch ms, set by the write) lies in the past.
 * Without the setting it does nothing. This is what makes a single autocommitted statement
 * (Outbox.write) as safe as a transaction that checks before COMMIT.
 */
export class KitEvents0002 extends Migration {
  override name = "kit-events-0002";

  override up(): void {
    this.addSql(`
      create function outbox_deadline_check() returns trigger language plpgsql as $$
      declare
        deadline text := current_setting('${DEADLINE_SETTING}', true);
      begin
        if deadline is not null and deadline <> ''
           and clock_timestamp() >= to_timestamp(deadline::float8 / 1000) then
          raise exception 'the call''s deadline passed before the write committed'
            using errcode = '${DEADLINE_SQLSTATE}';
        end if;
        return null;
      end $$`);
    this.addSql(`
      create constraint trigger outbox_deadline after insert on outbox
      deferrable initially deferred for each row execute function outbox_deadline_check()`);
  }
}

/**
 * The outbox is a queue: the relay deletes the rows it published (in the transaction that holds
 * them while it publishes) instead of marking them and pruning them a day later — a delete writes
 * no new row version and no index entries (JetStream is the log of what was published).
 */
export class KitEvents0003 extends Migration {
  override name = "kit-events-0003";

  override up(): void {
    this.addSql("delete from outbox where published_at is not null");
    this.addSql("drop index outbox_published_idx");
    this.addSql("drop index outbox_pending_idx");
    this.addSql("alter table outbox drop column published_at");
    this.addSql("create index outbox_order_idx on outbox (created, id)");
  }
}

/** Migrations of the kit's event tables, to put first in a service's list. */
export const kitEventMigrations: MigrationObject[] = [
  { name: "kit-events-0001", class: KitEvents0001 },
  { name: "kit-events-0002", class: KitEvents0002 },
  { name: "kit-events-0003", class: KitEvents0003 },
];
