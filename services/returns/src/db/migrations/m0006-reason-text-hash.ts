import { Migration } from "@mikro-orm/migrations";

/**
 * A reason's text is unique within its kind, and may be 1024 characters of any script: up to
 * 4 KB of UTF-8, more than a btree index entry holds (about 2.7 KB). So the uniqueness is on the
 * text's md5 (the lookup compares the text as well; a collision would only refuse a new text).
 */
export class M0006ReasonTextHash extends Migration {
  override name = "m0006-reason-text-hash";

  override up(): void {
    this.addSql("alter table reason drop constraint reason_text_unique");
    this.addSql("create unique index reason_text_key on reason (tenant_id, action, md5(reason))");
  }
}
