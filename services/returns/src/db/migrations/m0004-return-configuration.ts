import { Migration } from "@mikro-orm/migrations";

/** The tenant's return configuration (one per tenant), as its localized read-model document. */
export class M0004ReturnConfiguration extends Migration {
  override name = "m0004-return-configuration";

  override up(): void {
    this.addSql(`
      create table return_configuration (
        tenant_id text not null primary key,
        version integer not null,
        doc jsonb not null
      )`);
  }
}
