import type { Carriers } from "@fop/contracts/clients/carriers";
import type { Facilities } from "@fop/contracts/clients/facilities";
import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";

/** What the returns use cases need; service.ts and tests build it. */
export interface ReturnsDeps {
  db: SqlPool;
  outbox: Outbox;
  /** The facility registry (catalog RPC): does this tenant have the facility? */
  facilities: Facilities;
  /** The carrier registry (carriers RPC): a parcel's carrierRef. */
  carriers: Carriers;
  newShortId: () => string;
  now: () => Date;
  newId: () => string;
}
