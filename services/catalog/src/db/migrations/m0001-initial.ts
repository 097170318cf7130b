import { Migration } from "@mikro-orm/migrations";

/** Categories and facilities. Every index leads with tenant_id. */
export class M0001Initial extends Migration {
  override name = "m0001-initial";

  override up(): void {
    this.addSql(`
      create table category (
        tenant_id text not null,
        id uuid not null,
        version integer not null default 1,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        tenant_category_id text null,
        name_localized jsonb not null,
        custom_attributes jsonb null,
        sort_name text null,
        name_values text[] not null default '{}',
        primary key (tenant_id, id)
      )`);
    this.addSql(
      "create unique index category_tenant_category_id_key on category (tenant_id, tenant_category_id)",
    );
    this.addSql("create index category_created_idx on category (tenant_id, created, id)");
    this.addSql("create index category_last_modified_idx on category (tenant_id, last_modified, id)");
    this.addSql("create index category_sort_name_idx on category (tenant_id, sort_name, id)");
    this.addSql("create index category_name_values_idx on category using gin (tenant_id, name_values)");
    this.addSql(
      "create index category_name_localized_idx on category using gin (tenant_id, name_localized jsonb_path_ops)",
    );
    this.addSql(
      "create index category_custom_attributes_idx on category using gin (tenant_id, custom_attributes jsonb_path_ops)",
    );

    this.addSql(`
      create table facility (
        tenant_id text not null,
        id uuid not null,
        version integer not null default 1,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        tenant_facility_id text null,
        name text not null,
        type text not null,
        status text not null,
        location_type text null,
        address jsonb null,
        custom_attributes jsonb null,
        details jsonb not null default '{}',
        primary key (tenant_id, id)
      )`);
    this.addSql(
      "create unique index facility_tenant_facility_id_key on facility (tenant_id, tenant_facility_id)",
    );
    this.addSql("create index facility_status_idx on facility (tenant_id, status, id)");
    this.addSql("create index facility_name_idx on facility (tenant_id, name, id)");
    this.addSql(
      "create index facility_postal_code_idx on facility (tenant_id, (address ->> 'postalCode'), id)",
    );
  }
}
