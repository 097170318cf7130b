import type { Facilities } from "@fop/contracts/clients/facilities";
import type { SqlPool } from "@fop/kit/db/sql";
import type { LanedConsumer } from "@fop/kit/events/consumer";
import type { Outbox } from "@fop/kit/events/outbox";
import type { Sealer } from "@fop/kit/seal";
import type { CursorCodec } from "@fop/kit/search/cursor";
import type { RetryPolicy } from "../domain/delivery.ts";
import type { InterestIndex } from "./interest-index.ts";

/** What the notifications use cases need; service.ts and tests build it. */
export interface NotificationsDeps {
  db: SqlPool;
  outbox: Outbox;
  cursors: CursorCodec;
  /** The facility registry (catalog RPC): a facility's configuration needs the facility. */
  facilities: Facilities;
  /** Seals webhook signing secrets at rest. */
  secrets: Sealer;
  /** Why a callback URL may not be used (scheme, literal address, name resolving to a refused address). */
  checkCallbackUrl: (url: string) => Promise<string | undefined>;
  retry: RetryPolicy;
  /** Publishes a stored CLIENT notification to the tenant's live stream (after commit). */
  publishLive: (tenant: string, doc: unknown) => void;
  /** The tenant's live CLIENT notifications (JSON; empty: heartbeat) until `signal` aborts. */
  live: (tenant: string, signal: AbortSignal) => AsyncIterable<Uint8Array>;
  /** Tells the delivery worker that new deliveries are due (after commit). */
  wakeDelivery: () => void;
  /**
   * Which event types each tenant wants (interest-index.ts): dispatch skips the others; a write
   * changing subscriptions or configurations invalidates it when it commits.
   */
  interest: InterestIndex;
  /**
   * The dispatch consumer's lanes (kit consumer/lanes.ts): a write that makes event types wanted
   * covers their lanes in its transaction, so their events reach dispatch from its commit on.
   */
  dispatch: Pick<LanedConsumer, "cover">;
  /** Whether e-mails can be sent (SMTP_URL set). */
  emailEnabled: boolean;
  now: () => Date;
  newId: () => string;
}
