import { Migration } from "@mikro-orm/migrations";

/**
 * Carriers, their configurations (country service mappings inside: they are versioned with their
 * configuration and at most 100), and the tenant's transit time configuration. Each is its
 * read-model document (`doc`) plus the columns derived from it for lookups, locking and paging.
 * A carrier's credentials are kept apart from its document, sealed (AES-256-GCM, see
 * domain/credentials.ts): the document holds only their `key`.
 */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table carrier (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        key text not null,
        doc jsonb not null,
        credentials bytea null,
        primary key (tenant_id, id),
        constraint carrier_key_unique unique (tenant_id, key)
      )`);

    this.addSql(`
      create table carrier_configuration (
        tenant_id text not null,
        carrier_id uuid not null,
        id uuid not null,
        version integer not null,
        doc jsonb not null,
        primary key (tenant_id, carrier_id),
        foreign key (tenant_id, carrier_id) references carrier (tenant_id, id)
      )`);

    this.addSql(`
      create table transit_time_configuration (
        tenant_id text not null primary key,
        id uuid not null,
        version integer not null,
        doc jsonb not null
      )`);
  }
}
