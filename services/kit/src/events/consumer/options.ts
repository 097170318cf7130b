/**
 * What a durable consumer is told (its options and what it runs on), and the settings and counters
 * every part of it shares ({@link ConsumerRuntime}), resolved once from them.
 */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import type { ConsumerInfo } from "@nats-io/jetstream";
import type { Db, Sql, SqlPool } from "../../db/sql.ts";
import type { Logger } from "../../logger.ts";
import {
  counter,
  METRICS,
  type Metrics,
  onCollect,
  SCRAPE_READ_TIMEOUT_MS,
  sharedRead,
} from "../../metrics.ts";
import type { Nats } from "../nats.ts";
import { laneDurables } from "./lane-durables.ts";

export interface ConsumerOptions {
  /** Durable name, `<service>-<purpose>`, e.g. audit-records. */
  name: string;
  /**
   * The one entity type whose events this consumer takes, e.g. PICK_JOB: its JetStream filter is
   * `<prefix>.PICK_JOB.>`, so JetStream delivers it nothing else (default: every event). NATS 2.9
   * takes one filter subject per consumer, hence one entity type.
   */
  entityType?: string;
  /**
   * Instead of `entityType`: filters that follow what the service wants while it runs, one durable
   * per lane (lanes.ts); the consumer is then a {@link LanedConsumer}.
   */
  lanes?: LaneOptions;
  /** Event types to receive, as a list or a test (default: every event); read off the subject. */
  types?: string[] | ((type: string) => boolean);
  /**
   * Decides from the message's tenant header and its subject's type, before the envelope is decoded,
   * whether the consumer has anything to do with it; false: acknowledged and counted `skipped`, no
   * database work. (A message without the header is decoded first, then asked.)
   */
  accepts?: (tenant: string, type: string) => boolean | Promise<boolean>;
  /**
   * Runs in the transaction that also records the event id in the inbox. The messages that arrive
   * together (up to `transactionSize`) share one transaction and one inbox statement; if it fails,
   * each is tried alone, so a bad one cannot hold the others back.
   */
  handle?: (tx: Db, event: EventEnvelope) => Promise<void>;
  /** `handle` mode: messages per transaction at most (default 64). */
  transactionSize?: number;
  /** Applies events a batch at a time with one statement (see the module comment). */
  batch?: BatchHandler;
  /** Messages (with `batch`: batches) processed at once (default 8). */
  concurrency?: number;
  /**
   * Failed deliveries before an event is dead-lettered (default 10). The kit decides this from the
   * delivery count; JetStream's own max_deliver is unlimited, so an event whose dead letter cannot
   * be written is delivered again rather than dropped.
   */
  maxDeliver?: number;
}

/** One filter of a consumer with lanes: an entity type's events, or one event type's (of any entity). */
export type Lane = { entityType: string } | { type: string };

/** What a consumer with lanes is told (lanes.ts). */
export interface LaneOptions {
  /** The lanes wanted now, read in `db` (by reconcile, in the transaction holding the lock). */
  wanted: (db: Db) => Promise<readonly Lane[]>;
}

/** How a consumer applies a batch of events with one statement. */
export interface BatchHandler {
  /** Throws (an `invalid` AppError) for an event that can never be applied: it is dead-lettered. */
  check?: (event: EventEnvelope) => void;
  /**
   * The one statement applying `events`. It must skip the events it applied before (a unique key
   * on the event id with ON CONFLICT DO NOTHING): the same event may be delivered again.
   */
  statement: (events: EventEnvelope[]) => Sql;
  /** Messages per batch at most (default 64). */
  size?: number;
}

/** What a consumer runs on; a service's ServiceBase (service.ts) is one. */
export interface ConsumerDeps {
  db: SqlPool;
  nats: Nats;
  logger: Logger;
  /** Where the consumer's counters go (the service's /metrics). */
  metrics?: Metrics;
  /** The consuming service's schema (inbox and dead_letter live there). */
  schema: string;
  /**
   * How long a batch waits for more messages after its first arrived (CONSUMER_GATHER_MS; default
   * {@link DEFAULT_CONSUMER_GATHER_MS}); 0: only those that arrived together (the same socket read).
   */
  consumerGatherMs?: number;
}

/**
 * A batch's wait for more messages, by default. Under load, the events of a few milliseconds are
 * applied by one statement or transaction and acknowledged together; each batch costs the consumer,
 * Postgres and NATS about as much as one event (test/bench/README.md, "Consumers gather").
 */
export const DEFAULT_CONSUMER_GATHER_MS = 3;

/** A consumer's options resolved (defaults applied), with its counters. */
export interface ConsumerRuntime {
  db: SqlPool;
  nats: Nats;
  logger: Logger;
  schema: string;
  opts: ConsumerOptions;
  /** Messages per transaction (`handle`) or per statement (`batch`) at most. */
  batchSize: number;
  /** Messages (with `batch`: batches) processed at once. */
  concurrency: number;
  /** How long a batch waits for more messages after its first (ConsumerDeps.consumerGatherMs). */
  gatherMs: number;
  /** Failed deliveries before an event is dead-lettered. */
  maxDeliver: number;
  /** Whether the consumer takes events of `type` ({@link ConsumerOptions.types}). */
  wanted: (type: string) => boolean;
  /** fop_consumer_events_total{outcome}. */
  count(outcome: string, n?: number): void;
  /** fop_consumer_statements_total{mode}. */
  statement(mode: "batch" | "single"): void;
  /** fop_consumer_redeliveries_total: a message delivered again. */
  redelivered(): void;
  /** fop_consumer_replays_total{outcome}. */
  replayed(outcome: "replayed" | "failed"): void;
}

/** Checks and resolves `opts`, and registers the consumer's metrics (present from the start, at 0). */
export function consumerRuntime(deps: ConsumerDeps, opts: ConsumerOptions): ConsumerRuntime {
  const { db, nats, logger, schema } = deps;
  if (!opts.handle === !opts.batch) throw new Error("a consumer takes handle or batch");
  const batchSize = opts.batch ? (opts.batch.size ?? 64) : (opts.transactionSize ?? 64);
  const events = deps.metrics && counter(deps.metrics, METRICS.consumerEvents);
  const statements = deps.metrics && counter(deps.metrics, METRICS.consumerStatements);
  const count = (outcome: string, n = 1) => events?.inc({ consumer: opts.name, outcome }, n);
  const durable = { consumer: opts.name, stream: nats.events.stream };
  const redeliveries = deps.metrics && counter(deps.metrics, METRICS.consumerRedeliveries);
  const replays = deps.metrics && counter(deps.metrics, METRICS.consumerReplays);
  // Present from the start, at 0, so that rate() and increase() count the first one too.
  for (const outcome of ["done", "redelivered", "dead_lettered"]) count(outcome, 0);
  for (const outcome of ["replayed", "failed"]) replays?.inc({ consumer: opts.name, outcome }, 0);
  redeliveries?.inc(durable, 0);
  if (opts.lanes && opts.entityType) throw new Error("a consumer takes lanes or an entity type");
  if (deps.metrics) observeConsumer(deps.metrics, nats, durable, opts.lanes !== undefined);
  const types = opts.types;
  const wanted: (type: string) => boolean =
    typeof types === "function" ? types : types?.length ? (t) => types.includes(t) : () => true;
  return {
    db,
    nats,
    logger,
    schema,
    opts,
    batchSize,
    concurrency: opts.concurrency ?? 8,
    gatherMs: deps.consumerGatherMs ?? DEFAULT_CONSUMER_GATHER_MS,
    maxDeliver: opts.maxDeliver ?? 10,
    wanted,
    count,
    statement: (mode) => statements?.inc({ consumer: opts.name, mode }),
    redelivered: () => redeliveries?.inc(durable),
    replayed: (outcome) => replays?.inc({ consumer: opts.name, outcome }),
  };
}

/**
 * The durable consumer's lag gauges, read from JetStream's consumer info at each scrape (one
 * request for both, time-boxed: NaN when NATS does not answer in time or the consumer does not
 * exist yet); a consumer with lanes reports the sum over its lanes' durables (`<name>-*`). Every
 * replica reports the same durable's numbers: aggregate with max, not sum.
 */
function observeConsumer(
  metrics: Metrics,
  nats: Nats,
  durable: { consumer: string; stream: string },
  laned: boolean,
): void {
  type Counts = Pick<ConsumerInfo, "num_pending" | "num_ack_pending">;
  const lanesOf = async (): Promise<Counts> => {
    const sum = { num_pending: 0, num_ack_pending: 0 };
    for (const c of (await laneDurables(nats, durable.consumer)).values()) {
      sum.num_pending += c.num_pending;
      sum.num_ack_pending += c.num_ack_pending;
    }
    return sum;
  };
  const info = sharedRead<Counts>(
    laned ? lanesOf : () => nats.jsm.consumers.info(durable.stream, durable.consumer),
    { timeoutMs: SCRAPE_READ_TIMEOUT_MS },
  );
  const report = (value: (i: Counts) => number) => async (g: { set(l: typeof durable, v: number): void }) => {
    const i = await info();
    g.set(durable, i ? value(i) : Number.NaN);
  };
  onCollect(
    metrics,
    METRICS.consumerLag,
    report((i) => i.num_pending),
  );
  onCollect(
    metrics,
    METRICS.consumerAckPending,
    report((i) => i.num_ack_pending),
  );
}
