import { Migration } from "@mikro-orm/migrations";

/**
 * Facility groups. `facility_refs` keeps the order facilities were added in; the GIN index serves
 * "groups containing this facility" (search `facilityRefs.contains`, the per-facility group count,
 * removing a deleted facility). `facility_count`, `sort_name` and `name_values` are derived on
 * every write, for search and sorting.
 */
export class M0002FacilityGroups extends Migration {
  override name = "m0002-facility-groups";

  override up(): void {
    this.addSql(`
      create table facility_group (
        tenant_id text not null,
        id uuid not null,
        version integer not null,
        created timestamptz(3) not null,
        last_modified timestamptz(3) not null,
        tenant_facility_group_id text not null,
        name_localized jsonb not null,
        custom_attributes jsonb null,
        facility_refs text[] not null,
        facility_count integer not null,
        sort_name text null,
        name_values text[] not null,
        primary key (tenant_id, id)
      )`);
    this.addSql(
      "create unique index facility_group_tenant_facility_group_id_key on facility_group (tenant_id, tenant_facility_group_id)",
    );
    this.addSql(
      "create index facility_group_facility_refs_idx on facility_group using gin (tenant_id, facility_refs)",
    );
    this.addSql(
      "create index facility_group_facility_count_idx on facility_group (tenant_id, facility_count, id)",
    );
    this.addSql("create index facility_group_sort_name_idx on facility_group (tenant_id, sort_name, id)");
    this.addSql(
      "create index facility_group_name_values_idx on facility_group using gin (tenant_id, name_values)",
    );
  }
}
