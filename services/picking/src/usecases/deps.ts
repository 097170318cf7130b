import type { Facilities } from "@fop/contracts/clients/facilities";
import type { SqlPool } from "@fop/kit/db/sql";
import type { Outbox } from "@fop/kit/events/outbox";
import type { CursorCodec } from "@fop/kit/search/cursor";
import type { DocumentRenderer } from "../documents/renderer.ts";
import type { LoadUnits } from "../rpc/loadunits-client.ts";

/** What the picking use cases need; service.ts and tests build it. */
export interface PickingDeps {
  db: SqlPool;
  outbox: Outbox;
  /** The facility registry (catalog RPC): does this tenant have the facility? */
  facilities: Facilities;
  /** The loadunits service (RPC): which pick jobs have a load unit (loadUnitAssignmentConfiguration). */
  loadUnits: LoadUnits;
  /** Signs and verifies search cursors. */
  cursors: CursorCodec;
  now: () => Date;
  newId: () => string;
  /** Short, human-friendly job code (shortId). */
  newShortId: () => string;
  /** Renders pick job documents off the event loop, bounded per tenant. */
  documents: DocumentRenderer;
}
