import type { SqlPool } from "@fop/kit/db/sql";
import type { CursorCodec } from "@fop/kit/search/cursor";
import type { RetentionPolicy } from "../domain/audit.ts";

export interface AuditDeps {
  db: SqlPool;
  policy: RetentionPolicy;
  /** Signs and verifies search cursors. */
  cursors: CursorCodec;
  now: () => Date;
  newId: () => string;
}
