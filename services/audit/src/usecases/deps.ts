import type { Orm } from "@fop/kit/db/orm";
import type { RetentionPolicy } from "../domain/audit.ts";

export interface AuditDeps {
  orm: Orm;
  policy: RetentionPolicy;
  now: () => Date;
  newId: () => string;
}
