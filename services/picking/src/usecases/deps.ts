import type { RequestContext } from "@fop/kit/context";
import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";
import type { CursorCodec } from "@fop/kit/search/cursor";
import type { DocumentRenderer } from "../documents/renderer.ts";

/** The facility registry as picking needs it: does this tenant have the facility? (catalog RPC) */
export interface Facilities {
  exists(ctx: RequestContext, facilityId: string): Promise<boolean>;
}

/** What the picking use cases need; service.ts and tests build it. */
export interface PickingDeps {
  db: SqlPool;
  outbox: Outbox;
  facilities: Facilities;
  /** Signs and verifies search cursors. */
  cursors: CursorCodec;
  now: () => Date;
  newId: () => string;
  /** Short, human-friendly job code (shortId). */
  newShortId: () => string;
  /** Renders pick job documents off the event loop, bounded per tenant. */
  documents: DocumentRenderer;
}
