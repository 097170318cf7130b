/**
 * Live CLIENT notifications: stored ones are published (after commit) on a core NATS subject per
 * tenant, outside the event stream; every replica's StreamNotifications calls subscribe to it, so a
 * client connected to any replica sees notifications stored by any other. At most once: a client
 * that was not connected searches (POST /api/notifications/search).
 */
import type { NatsConnection } from "@nats-io/transport-node";

/** The subject of a tenant's live notifications (the tenant hex-encoded: any text is a valid token). */
export const liveSubject = (prefix: string, tenant: string) =>
  `${prefix}_live.notifications.${Buffer.from(tenant, "utf8").toString("hex") || "_"}`;

export function livePublisher(nc: NatsConnection, prefix: string) {
  return (tenant: string, doc: unknown) => {
    try {
      nc.publish(liveSubject(prefix, tenant), JSON.stringify(doc));
    } catch {
      // The connection is closing: a live push is best effort.
    }
  };
}

/**
 * The tenant's live notifications as JSON bytes, with an empty heartbeat every `heartbeatMs`, until
 * `signal` aborts.
 */
export async function* liveNotifications(
  nc: NatsConnection,
  prefix: string,
  tenant: string,
  signal: AbortSignal,
  heartbeatMs: number,
): AsyncGenerator<Uint8Array> {
  const queue: Uint8Array[] = [];
  let notify: (() => void) | undefined;
  const sub = nc.subscribe(liveSubject(prefix, tenant), {
    callback: (err, m) => {
      if (!err) queue.push(m.data);
      notify?.();
    },
  });
  const timer = setInterval(() => {
    queue.push(new Uint8Array());
    notify?.();
  }, heartbeatMs);
  const onAbort = () => notify?.();
  signal.addEventListener("abort", onAbort);
  try {
    // The first (empty) message tells the caller the subscription stands.
    yield new Uint8Array();
    while (!signal.aborted && !sub.isClosed()) {
      if (queue.length === 0) await new Promise<void>((r) => (notify = r));
      notify = undefined;
      while (queue.length > 0 && !signal.aborted) yield queue.shift() as Uint8Array;
    }
  } finally {
    clearInterval(timer);
    signal.removeEventListener("abort", onAbort);
    sub.unsubscribe();
  }
}
