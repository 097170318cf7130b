import type { Orm } from "@fop/kit/db/orm";
import type { CursorCodec } from "@fop/kit/search/cursor";
import type { RetentionPolicy } from "../domain/audit.ts";

export interface AuditDeps {
  orm: Orm;
  policy: RetentionPolicy;
  /** Signs and verifies search cursors. */
  cursors: CursorCodec;
  now: () => Date;
  newId: () => string;
}
