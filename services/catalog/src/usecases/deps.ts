import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";
import type { CursorCodec } from "@fop/kit/search/cursor";
import type { GroupLimits } from "../domain/facility-group.ts";

/** What the catalog's use cases need; main.ts and tests build it. */
export interface CatalogDeps {
  db: SqlPool;
  outbox: Outbox;
  /** Signs and verifies search cursors. */
  cursors: CursorCodec;
  /** Locale whose name categories sort by (then the alphabetically first locale). */
  defaultLocale: string;
  /** Facilities per group and groups per facility. */
  groupLimits: GroupLimits;
  now: () => Date;
  newId: () => string;
}
