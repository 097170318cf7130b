/**
 * Durable JetStream consumers: explicit ack, bounded concurrency, idempotent on event id, ack
 * only after the event's effects commit, `nak` with backoff on transient errors, `term` + a dead-letter row + an error log for
 * poison messages (undecodable, rejected as invalid, or out of deliveries). Trace context comes
 * from the headers: each message has its own consume span.
 *
 * What a consumer is delivered costs it before it decides anything, so it narrows that first:
 * `entityType` makes JetStream deliver only that entity's subjects (`<prefix>.<ENTITY>.>`); `lanes`
 * instead, filters that follow what the service wants while it runs (one durable per entity or
 * event type, consumer/lanes.ts); `types` (read off the subject) and `accepts` (with the tenant
 * header) acknowledge what it does not want before the envelope is decoded, with no database work.
 *
 * Two ways to apply events ("arrive together": within CONSUMER_GATHER_MS of a batch's first,
 * consumer/fetch.ts):
 * - `handle(tx, event)`: any logic; the messages that arrive together share one transaction in which
 *   ONE statement writes their inbox rows (consumer, event id), which make a redelivery a no-op;
 *   if that transaction fails, each event is tried in its own.
 * - `batch`: the messages that arrive together (up to `batch.size`) are applied by ONE
 *   autocommitted statement, which must itself skip events it applied before (a unique key on the
 *   event id, ON CONFLICT DO NOTHING). One round trip for a whole batch. Events `batch.check`
 *   refuses are dead-lettered alone before the statement is built; if the statement fails anyway,
 *   each event is tried alone, so a bad one cannot hold the others back.
 *
 * `fop_consumer_events_total{consumer,outcome}` and `fop_consumer_statements_total{consumer,mode}`
 * (mode `batch`, or `single` for the one-by-one retry) show what happens;
 * `fop_consumer_redeliveries_total{consumer,stream}` counts messages delivered again, and
 * `fop_consumer_lag_messages` / `fop_consumer_ack_pending_messages` report JetStream's view of the
 * durable at each scrape (metrics.ts).
 *
 * Dead letters can be replayed once their cause is fixed ({@link EventConsumer.replayDeadLetters},
 * the admin port's POST /dead-letters/replay): each stored message goes through the path a delivery
 * takes, and its row is deleted once it is applied. `fop_consumer_replays_total{consumer,outcome}`
 * counts them.
 *
 * A service process started with EVENT_CONSUMERS=off starts none of its consumers (service.ts): it
 * creates no durable and reads nothing from the stream, but can still replay their dead letters.
 *
 * This module wires the parts (consumer/): options.ts (the options, resolved; the counters),
 * durable.ts (the durables and their migration), lanes.ts (a consumer's lanes), fetch.ts (the
 * fetch loop), delivery.ts (message to event, failures and dead-lettering), handle.ts and batch.ts
 * (the two ways to apply), acks.ts (acknowledgements sent together, redelivery backoff),
 * dead-letters.ts (listing and replaying).
 */
import { type Db, query } from "../db/sql.ts";
import type { Worker } from "../worker.ts";
import { ackBatcher } from "./consumer/acks.ts";
import { batchMode } from "./consumer/batch.ts";
import { deadLetterReplay, type ReplayReport } from "./consumer/dead-letters.ts";
import { deliveries } from "./consumer/delivery.ts";
import { durables } from "./consumer/durable.ts";
import { fetchLoop } from "./consumer/fetch.ts";
import { handleMode } from "./consumer/handle.ts";
import { type Lane, type LaneOptions, lanes } from "./consumer/lanes.ts";
import { type ConsumerDeps, type ConsumerOptions, consumerRuntime } from "./consumer/options.ts";

export { nakDelay } from "./consumer/acks.ts";
export {
  listAllDeadLetters,
  listDeadLetters,
  REPLAY_LIMIT,
  type ReplayReport,
} from "./consumer/dead-letters.ts";
export type { Lane, LaneOptions } from "./consumer/lanes.ts";
export type { BatchHandler, ConsumerDeps, ConsumerOptions } from "./consumer/options.ts";

/** A durable consumer: a worker that can also replay its dead letters. */
export interface EventConsumer extends Worker {
  /**
   * Re-applies dead letters of this consumer, each through the path a delivery takes: `ids`, or
   * (without) the oldest {@link REPLAY_LIMIT}. The consumer need not be running.
   */
  replayDeadLetters(ids?: readonly string[]): Promise<ReplayReport>;
}

/** A consumer with lanes (consumer/lanes.ts): its filters follow what its service wants. */
export interface LanedConsumer extends EventConsumer {
  /**
   * In the transaction of a write that makes `lanes` wanted, before it commits: takes the lanes'
   * lock (shared) and makes each lane's durable, so that every event committed after the write
   * reaches this consumer.
   */
  cover(tx: Db, lanes: readonly Lane[]): Promise<void>;
  /**
   * The service's wants changed (here or on another replica): reconciles the lanes (creates,
   * deletes, migrates their durables) and reads the durables that exist then. In the background.
   */
  refresh(): void;
}

export const isEventConsumer = (w: Worker): w is EventConsumer =>
  typeof (w as Partial<EventConsumer>).replayDeadLetters === "function";

export function eventConsumer(
  deps: ConsumerDeps,
  opts: ConsumerOptions & { lanes: LaneOptions },
): LanedConsumer;
export function eventConsumer(deps: ConsumerDeps, opts: ConsumerOptions): EventConsumer;
export function eventConsumer(deps: ConsumerDeps, opts: ConsumerOptions): EventConsumer | LanedConsumer {
  const rt = consumerRuntime(deps, opts);
  const laned = opts.lanes && lanes(rt, opts.lanes);
  const { db, nats, logger, schema } = rt;
  let running = false;
  const inboxRetentionMs = nats.events.inboxRetentionMs ?? 14 * 24 * 3600_000;
  let pruneTimer: NodeJS.Timeout | undefined;
  const acks = ackBatcher();
  const delivered = deliveries(rt, acks);
  const mode = opts.batch ? batchMode(rt, delivered) : handleMode(rt, delivered);
  const fetching = fetchLoop(rt, {
    ensureDurables: laned ? laned.reconcile : durables(rt).ensure,
    process: mode.process,
    running: () => running,
  });

  /**
   * Deletes this consumer's inbox rows older than the retention. Runs when the consumer starts and
   * then every min(1 h, retention / 2) while it runs (a replica's process may live for months).
   */
  async function prune(): Promise<void> {
    await query(db, {
      text: `delete from ${schema}.inbox where consumer = $1 and processed_at < clock_timestamp() - make_interval(secs => $2)`,
      params: [opts.name, inboxRetentionMs / 1000],
    });
  }
  const prunePeriodically = () => {
    pruneTimer = setTimeout(
      () =>
        void prune()
          .catch((err) =>
            logger.warn({ consumer: opts.name, err: (err as Error).message }, "inbox prune failed"),
          )
          .finally(() => {
            if (running) prunePeriodically();
          }),
      Math.min(3600_000, inboxRetentionMs / 2),
    );
    pruneTimer.unref();
  };

  let loop: Promise<void> | undefined;
  const lanesOf = laned && {
    cover: laned.cover,
    refresh: () => fetching.refresh(),
  };
  return {
    ...lanesOf,
    name: opts.name,
    replayDeadLetters: deadLetterReplay(rt, mode, delivered),
    async start() {
      running = true;
      await prune().catch((err) =>
        logger.warn({ consumer: opts.name, err: (err as Error).message }, "inbox prune failed"),
      );
      prunePeriodically();
      loop = fetching.run();
    },
    async stop() {
      running = false;
      clearTimeout(pruneTimer);
      fetching.stop();
      await loop;
      await Promise.all(fetching.inFlight);
      acks.flush();
    },
  };
}
