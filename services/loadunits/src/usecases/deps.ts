import type { Facilities } from "@fop/contracts/clients/facilities";
import type { RequestContext } from "@fop/kit/context";
import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";
import type { PickJobRef } from "../db/rows.ts";

/** Picking's answer for one pick job, asked only when the projection has not seen it (RPC). */
export interface PickJobSource {
  /** The job as picking has it now, or undefined when the tenant has no such job. */
  fetch(ctx: RequestContext, id: string): Promise<PickJobRef | undefined>;
}

/** What the load unit use cases need; service.ts and tests build it. */
export interface LoadUnitsDeps {
  db: SqlPool;
  outbox: Outbox;
  pickJobs: PickJobSource;
  /** The catalog's facility registry: a stack's facilityRefs must name facilities of the tenant. */
  facilities: Pick<Facilities, "exists">;
  now: () => Date;
  newId: () => string;
  /** Locale whose names fill `name`/`description` when a request names none or one a map lacks. */
  defaultLocale: string;
  /** Largest icon accepted (decoded bytes). */
  iconMaxBytes: number;
}
