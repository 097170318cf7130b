import { Migration } from "@mikro-orm/migrations";

/**
 * `last_user_modification`: when a user last changed the job (the newest entry of the document's
 * usersModificationHistory, else its creation), the sort key of the list's
 * orderBy=LAST_MODIFIED_BY_USER_ASC/DESC. Derived from the document like every other column
 * (db/rows.ts jobColumns); filled here for the jobs that exist.
 */
export class M0002LastUserModification extends Migration {
  override name = "m0002-last-user-modification";

  override up(): void {
    this.addSql("alter table pick_job add column last_user_modification timestamptz(3) null");
    this.addSql(`
      update pick_job set last_user_modification = coalesce(
        (select max((e ->> 'modificationDate')::timestamptz)
           from jsonb_array_elements(coalesce(doc -> 'usersModificationHistory', '[]'::jsonb)) e),
        created)`);
    this.addSql("alter table pick_job alter column last_user_modification set not null");
    this.addSql(
      "create index pick_job_last_user_modification_idx on pick_job (tenant_id, last_user_modification, id)",
    );
  }
}
