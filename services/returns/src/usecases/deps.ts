import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";

/** What the returns use cases need; service.ts and tests build it. */
export interface ReturnsDeps {
  db: SqlPool;
  outbox: Outbox;
  now: () => Date;
  newId: () => string;
}
