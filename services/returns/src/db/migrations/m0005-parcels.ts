import { Migration } from "@mikro-orm/migrations";

/**
 * Item return parcels: the Parcel document, the job and item return it belongs to, and its
 * tenantParcelId, unique among the tenant's parcels that are not OBSOLETE or CANCELED.
 */
export class M0005Parcels extends Migration {
  override name = "m0005-parcels";

  override up(): void {
    this.addSql(`
      create table parcel (
        tenant_id text not null,
        id uuid not null,
        item_return_job_id uuid not null,
        item_return_id uuid not null,
        status text not null,
        tenant_parcel_id text,
        doc jsonb not null,
        primary key (tenant_id, id)
      )`);
    this.addSql(
      `create unique index parcel_tenant_parcel_id_key on parcel (tenant_id, tenant_parcel_id)
        where tenant_parcel_id is not null and status not in ('OBSOLETE', 'CANCELED')`,
    );
    this.addSql(
      "create index parcel_item_return_idx on parcel (tenant_id, item_return_job_id, item_return_id)",
    );
  }
}
