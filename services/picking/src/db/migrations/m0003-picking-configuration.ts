import { Migration } from "@mikro-orm/migrations";

/** The tenant's picking configuration (one per tenant, none until the first PATCH), as its read-model document. */
export class M0003PickingConfiguration extends Migration {
  override name = "m0003-picking-configuration";

  override up(): void {
    this.addSql(`
      create table picking_configuration (
        tenant_id text not null primary key,
        version integer not null,
        doc jsonb not null
      )`);
  }
}
