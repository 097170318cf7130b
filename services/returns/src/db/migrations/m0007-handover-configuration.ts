import { Migration } from "@mikro-orm/migrations";

/** The tenant's handover configuration (one per tenant: its refuse reasons), as its read-model document. */
export class M0007HandoverConfiguration extends Migration {
  override name = "m0007-handover-configuration";

  override up(): void {
    this.addSql(`
      create table handover_configuration (
        tenant_id text not null primary key,
        version integer not null,
        doc jsonb not null
      )`);
  }
}
