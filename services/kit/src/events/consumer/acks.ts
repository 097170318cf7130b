/** Settling messages: acknowledgements sent together, and the backoff of a redelivery. */
import type { JsMsg } from "@nats-io/jetstream";

/** Acknowledgements wait at most this long to go out together, or until this many wait. */
const ACK_DELAY_MS = 5;
const ACK_BATCH = 64;

/** Redelivery delay after the n-th failed delivery: 0.5 s, 1 s, 2 s ... capped at 30 s. */
export const nakDelay = (deliveries: number) => Math.min(30_000, 500 * 2 ** Math.max(0, deliveries - 1));

export interface AckBatcher {
  /** Acknowledges `m` with the others due within {@link ACK_DELAY_MS}. */
  ackSoon(m: JsMsg): void;
  /** Sends the waiting acknowledgements now. */
  flush(): void;
}

/**
 * Acknowledgements go out together: within {@link ACK_DELAY_MS}, or at once when
 * {@link ACK_BATCH} are waiting, in one socket write (one each, at a few hundred events a second,
 * cost the consumer and the NATS server more than deciding the events did). Safe to delay: an
 * acknowledgement lost to a crash only means a redelivery, which the inbox makes a no-op.
 */
export function ackBatcher(): AckBatcher {
  let acks: JsMsg[] = [];
  let ackTimer: NodeJS.Timeout | undefined;
  function flush(): void {
    if (ackTimer) clearTimeout(ackTimer);
    ackTimer = undefined;
    const due = acks;
    acks = [];
    for (const m of due) m.ack();
  }
  function ackSoon(m: JsMsg): void {
    acks.push(m);
    if (acks.length >= ACK_BATCH) flush();
    else ackTimer ??= setTimeout(flush, ACK_DELAY_MS);
  }
  return { ackSoon, flush };
}
