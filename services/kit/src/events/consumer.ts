/**
 * Durable JetStream consumers: explicit ack, bounded concurrency, idempotent on event id, ack
 * only after the event's effects commit, `nak` with backoff on transient errors, `term` + a dead-letter row + an error log for
 * poison messages (undecodable, rejected as invalid, or out of deliveries). Trace context comes
 * from the headers: each message has its own consume span.
 *
 * What a consumer is delivered costs it before it decides anything, so it narrows that first:
 * `entityType` makes JetStream deliver only that entity's subjects (`<prefix>.<ENTITY>.>`), `types`
 * (read off the subject) and `accepts` (with the tenant header) acknowledge what it does not want
 * before the envelope is decoded, with no database work.
 *
 * Two ways to apply events:
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
 */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { AckPolicy, type ConsumerInfo, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { type Db, query, type Sql, type SqlPool } from "../db/sql.ts";
import { inTransaction, translateDbError } from "../db/tx.ts";
import { isAppError } from "../errors.ts";
import { isUuid, newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import { counter, METRICS, type Metrics, onCollect, SCRAPE_READ_TIMEOUT_MS, sharedRead } from "../metrics.ts";
import {
  extractTraceContext,
  type OtelContext,
  otelContext,
  otelTrace,
  type Span,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../otel.ts";
import type { Worker } from "../worker.ts";
import { decodeEnvelope } from "./envelope.ts";
import { entityFilter, eventTypeOfSubject, legacyFilter, type Nats, TENANT_HEADER } from "./nats.ts";

export interface ConsumerOptions {
  /** Durable name, `<service>-<purpose>`, e.g. audit-records. */
  name: string;
  /**
   * The one entity type whose events this consumer takes, e.g. PICK_JOB: its JetStream filter is
   * `<prefix>.PICK_JOB.>`, so JetStream delivers it nothing else (default: every event). NATS 2.9
   * takes one filter subject per consumer, hence one entity type.
   */
  entityType?: string;
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
}

/** Dead letters one replay call tries at most (the oldest first when it names none). */
export const REPLAY_LIMIT = 1000;

/** What a replay of a consumer's dead letters did. */
export interface ReplayReport {
  /**
   * Dead letters applied now, found applied before (an event is applied once), or of a type the
   * consumer no longer takes (nothing to apply, as on a delivery): their rows are deleted.
   */
  replayed: number;
  /**
   * Dead letters that failed again (undecodable, rejected, or the handler failing): their rows are
   * kept with this error, one more delivery counted and `failed_at` set to now.
   */
  failed: { id: string; eventId: string | null; error: string }[];
  /** Ids named that are not (or, replayed meanwhile by another call, no longer) this consumer's dead letters. */
  notFound: string[];
  /**
   * The consumer's dead letters this call did not try (beyond {@link REPLAY_LIMIT}, not named, or
   * written meanwhile); those that failed again are not counted here.
   */
  remaining: number;
}

/** A durable consumer: a worker that can also replay its dead letters. */
export interface EventConsumer extends Worker {
  /**
   * Re-applies dead letters of this consumer, each through the path a delivery takes: `ids`, or
   * (without) the oldest {@link REPLAY_LIMIT}. The consumer need not be running.
   */
  replayDeadLetters(ids?: readonly string[]): Promise<ReplayReport>;
}

export const isEventConsumer = (w: Worker): w is EventConsumer =>
  typeof (w as Partial<EventConsumer>).replayDeadLetters === "function";

/** The envelope in a message's bytes; throws (`undecodable: ...`) when there is none. */
function decodeEvent(data: Uint8Array): EventEnvelope {
  try {
    const event = decodeEnvelope(data);
    if (!event.id) throw new Error("envelope without id");
    return event;
  } catch (err) {
    throw new Error(`undecodable: ${(err as Error).message}`);
  }
}

/** Acknowledgements wait at most this long to go out together, or until this many wait. */
const ACK_DELAY_MS = 5;
/** How long one pull request waits for messages (its idle heartbeat: half of it). */
const PULL_EXPIRES_MS = 5_000;
const ACK_BATCH = 64;

/** Redelivery delay after the n-th failed delivery: 0.5 s, 1 s, 2 s ... capped at 30 s. */
export const nakDelay = (deliveries: number) => Math.min(30_000, 500 * 2 ** Math.max(0, deliveries - 1));

export function eventConsumer(deps: ConsumerDeps, opts: ConsumerOptions): EventConsumer {
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
  if (deps.metrics) observeConsumer(deps.metrics, nats, durable);
  const concurrency = opts.concurrency ?? 8;
  const types = opts.types;
  const wanted: (type: string) => boolean =
    typeof types === "function" ? types : types?.length ? (t) => types.includes(t) : () => true;
  const maxDeliver = opts.maxDeliver ?? 10;
  const prefix = nats.events.subjectPrefix;
  const stream = nats.events.stream;
  const filter = entityFilter(prefix, opts.entityType);
  const legacyName = `${opts.name}-legacy`;
  let running = false;
  const stops = new Set<() => void>();
  const inFlight = new Set<Promise<void>>();
  const inboxRetentionMs = nats.events.inboxRetentionMs ?? 14 * 24 * 3600_000;
  let pruneTimer: NodeJS.Timeout | undefined;

  const limits = {
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(nats.events.ackWaitMs ?? 30_000),
    // Unlimited: at JetStream's limit it would stop delivering an event whether or not its dead
    // letter was written (see deadLetter).
    max_deliver: -1,
    max_ack_pending: Math.max(concurrency * 4, batchSize * concurrency * 2),
  };
  const durableConfig = (name: string, filterSubject: string, startSeq?: number) => ({
    ...limits,
    durable_name: name,
    filter_subject: filterSubject,
    ...(startSeq === undefined
      ? { deliver_policy: DeliverPolicy.All }
      : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }),
  });
  const info = (name: string) =>
    nats.jsm.consumers.info(stream, name).catch((err: Error) => {
      if (/consumer not found/i.test(err.message)) return undefined;
      throw err;
    });
  const add = (config: ReturnType<typeof durableConfig>) =>
    nats.jsm.consumers.add(stream, config).catch((err: Error) => {
      if (!/already (in use|exists)/i.test(err.message)) throw err;
    });

  /**
   * Creates or updates the durable; returns the durables to read: its own and, after a migration,
   * the legacy one.
   *
   * **Migration.** A durable whose filter is not this consumer's (one made before the subject
   * hierarchy: `<prefix>.>` for every consumer) cannot be changed in place on NATS 2.9. It is
   * replaced by one of the same name (the inbox and dead letters are keyed by the name) with the new
   * filter, starting at the old one's first unacknowledged event (what it had acknowledged out of
   * order comes again: applying is idempotent). Events on legacy subjects (`<prefix>.<TYPE>`, which
   * producers not yet upgraded still publish during a rolling deploy, and their relays' outbox rows
   * hold) match no entity filter: a second durable, `<name>-legacy`, reads exactly those from the
   * same point on, so none is lost. It is made first: a crash at any step leaves either the old
   * durable or (none left) a new one delivering the whole stream again, never a gap. Once no
   * producer writes legacy subjects it receives nothing and costs nothing; an operator may delete it
   * when its pending count is 0.
   */
  async function ensureConsumers(): Promise<string[]> {
    await nats.ensureStream();
    const current = await info(opts.name);
    if (!current) {
      await add(durableConfig(opts.name, filter));
    } else if ((current.config.filter_subject ?? "") !== filter) {
      const start = current.ack_floor.stream_seq + 1;
      logger.info(
        { consumer: opts.name, from: current.config.filter_subject, to: filter, startSeq: start },
        "migrating the durable consumer to its narrower filter",
      );
      if (filter !== entityFilter(prefix)) await add(durableConfig(legacyName, legacyFilter(prefix), start));
      await nats.jsm.consumers.delete(stream, opts.name);
      await add(durableConfig(opts.name, filter, start));
    } else {
      await nats.jsm.consumers.update(stream, opts.name, {
        ack_wait: limits.ack_wait,
        max_deliver: limits.max_deliver,
        max_ack_pending: limits.max_ack_pending,
      });
    }
    return filter !== entityFilter(prefix) && (await info(legacyName))
      ? [opts.name, legacyName]
      : [opts.name];
  }

  /**
   * Records `m` in dead_letter and terminates it; true once it is recorded. If the row cannot be
   * written (the database is down), the message is NOT terminated but nak'ed with backoff: it comes
   * again, and is applied or dead-lettered then. Never terminated unrecorded.
   */
  async function deadLetter(m: JsMsg, eventId: string | undefined, error: string): Promise<boolean> {
    const deliveries = m.info.deliveryCount;
    try {
      await query(db, {
        text: `insert into ${schema}.dead_letter (id, consumer, event_id, subject, payload, error, deliveries) values ($1, $2, $3, $4, $5, $6, $7)`,
        params: [
          newId(),
          opts.name,
          eventId ?? null,
          m.subject,
          Buffer.from(m.data),
          error.slice(0, 4000),
          deliveries,
        ],
      });
    } catch (err) {
      logger.error(
        { consumer: opts.name, subject: m.subject, eventId, deliveries, error, err },
        "dead-lettering failed; the event comes again",
      );
      m.nak(nakDelay(deliveries));
      return false;
    }
    logger.error(
      { consumer: opts.name, subject: m.subject, eventId, deliveries, error },
      "event dead-lettered",
    );
    // No reason: a server before 2.10.4 ignores "+TERM <reason>" (the delivery would come again
    // after ack_wait, and again: max_deliver is unlimited); the row holds the error.
    m.term();
    return true;
  }

  /**
   * The envelope of `m`; undefined once it is dead-lettered (undecodable) or acknowledged (a type
   * this consumer does not take).
   */
  async function open(m: JsMsg, skipped: JsMsg[]): Promise<EventEnvelope | undefined> {
    if (m.info.deliveryCount > 1) redeliveries?.inc(durable);
    // What the subject and the tenant header tell, before any decoding.
    const type = eventTypeOfSubject(m.subject);
    const tenant = m.headers?.get(TENANT_HEADER) || undefined;
    let admitted = wanted(type) && (!opts.accepts || tenant === undefined || opts.accepts(tenant, type));
    if (typeof admitted !== "boolean") admitted = await admitted;
    if (!admitted) {
      skipped.push(m);
      return undefined;
    }
    let event: EventEnvelope;
    try {
      event = decodeEvent(m.data);
    } catch (err) {
      const recorded = await deadLetter(m, undefined, (err as Error).message);
      count(recorded ? "dead_lettered" : "redelivered");
      return undefined;
    }
    if (
      !wanted(event.type) ||
      (opts.accepts && tenant === undefined && !(await opts.accepts(event.tenant, event.type)))
    ) {
      skipped.push(m);
      return undefined;
    }
    return event;
  }

  /**
   * Acknowledges what the consumer does not take, all at once: one socket write for the batch
   * (acknowledged one by one between awaits, each went out in a write of its own).
   */
  function settleSkipped(skipped: JsMsg[]): void {
    if (skipped.length === 0) return;
    count("skipped", skipped.length);
    for (const m of skipped) ackSoon(m);
  }

  /**
   * Acknowledgements go out together: within {@link ACK_DELAY_MS}, or at once when
   * {@link ACK_BATCH} are waiting, in one socket write (one each, at a few hundred events a second,
   * cost the consumer and the NATS server more than deciding the events did). Safe to delay: an
   * acknowledgement lost to a crash only means a redelivery, which the inbox makes a no-op.
   */
  let acks: JsMsg[] = [];
  let ackTimer: NodeJS.Timeout | undefined;
  function flushAcks(): void {
    if (ackTimer) clearTimeout(ackTimer);
    ackTimer = undefined;
    const due = acks;
    acks = [];
    for (const m of due) m.ack();
  }
  function ackSoon(m: JsMsg): void {
    acks.push(m);
    if (acks.length >= ACK_BATCH) flushAcks();
    else ackTimer ??= setTimeout(flushAcks, ACK_DELAY_MS);
  }

  /** After a failure: poison, or out of deliveries, is dead-lettered; anything else comes again later. */
  async function failed(m: JsMsg, event: EventEnvelope, err: unknown): Promise<void> {
    const poison = isAppError(err) && err.kind === "invalid";
    if (poison || m.info.deliveryCount >= maxDeliver) {
      const why = `${poison ? "rejected" : "gave up"}: ${(err as Error).message}`;
      count((await deadLetter(m, event.id, why)) ? "dead_lettered" : "redelivered");
      return;
    }
    count("redelivered");
    logger.warn(
      {
        consumer: opts.name,
        eventId: event.id,
        deliveries: m.info.deliveryCount,
        err: (err as Error).message,
      },
      "event failed; redelivering",
    );
    m.nak(nakDelay(m.info.deliveryCount));
  }

  /**
   * `handle` mode, in the transaction `tx`: the inbox row, then the handler; false (and nothing
   * done) when the inbox lists the event already (applied before).
   */
  async function applyHandled(tx: Db, event: EventEnvelope): Promise<boolean> {
    const fresh = await query(tx, {
      text: `insert into ${schema}.inbox (consumer, event_id) values ($1, $2) on conflict do nothing returning 1 as ok`,
      params: [opts.name, event.id],
    });
    if (fresh.length === 0) return false;
    await opts.handle!(tx, event);
    return true;
  }

  /** Inbox rows for `events` in one statement: the ids of those not applied before. */
  async function freshIds(tx: Db, events: EventEnvelope[]): Promise<Set<string>> {
    const rows = await query<{ event_id: string }>(tx, {
      text: `insert into ${schema}.inbox (consumer, event_id) select $1, unnest($2::uuid[]) on conflict do nothing returning event_id`,
      params: [opts.name, events.map((e) => e.id)],
    });
    return new Set(rows.map((r) => r.event_id));
  }

  /** `handle` mode, one message in its own transaction. */
  async function processOne(item: Item): Promise<void> {
    try {
      // An event processed before is acknowledged again, with nothing done.
      await otelContext.with(item.context, () => inTransaction(db, (tx) => applyHandled(tx, item.event)));
      statements?.inc({ consumer: opts.name, mode: "single" });
      item.m.ack();
      count("done");
    } catch (err) {
      item.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      await failed(item.m, item.event, err);
    }
  }

  /**
   * `handle` mode: the messages that arrived together in one transaction, with one inbox statement;
   * if it fails, each alone (see `handle`).
   */
  async function processHandled(batch: JsMsg[]): Promise<void> {
    const { items, again } = await collect(batch);
    try {
      if (items.length > 1) {
        try {
          await otelContext.with(items[0]!.context, () =>
            inTransaction(db, async (tx) => {
              const fresh = await freshIds(
                tx,
                items.map((i) => i.event),
              );
              for (const { event } of items) if (fresh.has(event.id)) await opts.handle!(tx, event);
            }),
          );
          statements?.inc({ consumer: opts.name, mode: "batch" });
          for (const { m } of items) ackSoon(m);
          for (const m of again) ackSoon(m);
          count("done", items.length);
          return;
        } catch (err) {
          logger.warn(
            { consumer: opts.name, events: items.length, err: (err as Error).message },
            "a transaction of several events failed; applying them one by one",
          );
        }
      }
      for (const item of items) await processOne(item);
      for (const m of again) m.nak(nakDelay(m.info.deliveryCount));
    } finally {
      for (const { span } of items) span.end();
    }
  }

  interface Item {
    m: JsMsg;
    event: EventEnvelope;
    span: Span;
    context: OtelContext;
  }

  /**
   * The events of `batch` to apply, each once, with its consume span; `again`: redeliveries of an
   * event already among them (settled with it). Messages skipped, undecodable or refused by `check`
   * are settled here.
   */
  async function collect(batch: JsMsg[], check?: (event: EventEnvelope) => void) {
    const items: Item[] = [];
    const again: JsMsg[] = [];
    const ids = new Set<string>();
    const skipped: JsMsg[] = [];
    for (const m of batch) {
      const event = await open(m, skipped);
      if (!event) continue;
      if (ids.has(event.id)) {
        again.push(m);
        continue;
      }
      try {
        check?.(event);
      } catch (err) {
        await failed(m, event, err);
        continue;
      }
      ids.add(event.id);
      items.push({ m, event, ...consumeSpan(m, event.id) });
    }
    settleSkipped(skipped);
    return { items, again };
  }

  /** The handler's statement for `batch`, autocommitted. */
  async function applyStatement(batch: EventEnvelope[]): Promise<void> {
    try {
      await query(db, opts.batch!.statement(batch));
    } catch (err) {
      throw translateDbError(err);
    }
  }

  /** `batch` mode: the messages that arrived together, one statement (see the module comment). */
  async function processBatch(batch: JsMsg[]): Promise<void> {
    const { items, again } = await collect(batch, opts.batch!.check);
    if (items.length === 0) {
      for (const m of again) m.nak(nakDelay(m.info.deliveryCount));
      return;
    }
    try {
      await otelContext.with(items[0]!.context, () => applyStatement(items.map((i) => i.event)));
      statements?.inc({ consumer: opts.name, mode: "batch" });
      for (const { m } of items) ackSoon(m);
      for (const m of again) ackSoon(m);
      count("done", items.length);
    } catch (err) {
      for (const m of again) m.nak(nakDelay(m.info.deliveryCount));
      if (items.length === 1) {
        items[0]!.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        await failed(items[0]!.m, items[0]!.event, err);
      } else {
        logger.warn(
          { consumer: opts.name, events: items.length, err: (err as Error).message },
          "a batch failed; applying its events one by one",
        );
        for (const item of items) {
          try {
            await otelContext.with(item.context, () => applyStatement([item.event]));
            statements?.inc({ consumer: opts.name, mode: "single" });
            item.m.ack();
            count("done");
          } catch (e) {
            item.span.setStatus({ code: SpanStatusCode.ERROR, message: (e as Error).message });
            await failed(item.m, item.event, e);
          }
        }
      }
    } finally {
      for (const { span } of items) span.end();
    }
  }

  /** A consume span per message, child of the context its headers carry. */
  function consumeSpan(m: JsMsg, eventId: string) {
    // The relay writes the trace headers lower-case, as the W3C propagator reads them.
    const parent = m.headers ? extractTraceContext(m.headers as unknown as Headers) : otelContext.active();
    return eventSpan(`${m.subject} process`, eventId, parent);
  }

  /** A consumer span for one event (`eventId` unknown: an undecodable dead letter). */
  function eventSpan(name: string, eventId: string | undefined, parent: OtelContext) {
    const span = tracer().startSpan(
      name,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          "messaging.system": "nats",
          "messaging.consumer.group.name": opts.name,
          "messaging.message.id": eventId,
        },
      },
      parent,
    );
    return { span, context: otelTrace.setSpan(parent, span) };
  }

  /**
   * Applies a stored message (a dead letter's payload) the way a delivery does: decoded (throws
   * `undecodable: ...`); a type the consumer does not take is skipped; then, in `handle` mode, the
   * inbox row and the handler in one transaction; in `batch` mode `batch.check` and the statement
   * for this one event, autocommitted. `claim` (deleting the dead letter's row) runs first in that
   * transaction, after the statement in `batch` mode; undefined when it found nothing to claim (in
   * `handle` mode nothing is applied then). Throws what a delivery would fail with.
   */
  async function applyStored(
    data: Uint8Array,
    claim: (db: Db) => Promise<boolean>,
  ): Promise<{ event: EventEnvelope; applied: "now" | "before" | "skipped" } | undefined> {
    const event = decodeEvent(data);
    if (!wanted(event.type)) return (await claim(db)) ? { event, applied: "skipped" } : undefined;
    if (opts.handle) {
      return inTransaction(db, async (tx) => {
        if (!(await claim(tx))) return undefined;
        return { event, applied: (await applyHandled(tx, event)) ? "now" : "before" };
      });
    }
    opts.batch!.check?.(event);
    await applyStatement([event]);
    // (The statement skips an event it applied before: "now" may have been before.)
    return (await claim(db)) ? { event, applied: "now" } : undefined;
  }

  /**
   * Replays one dead letter: applies its payload and deletes its row, in one transaction in `handle`
   * mode. In `batch` mode the statement commits, then the row is deleted: a crash in between leaves
   * the row, and replaying it again is harmless (the statement skips an event it applied before).
   * `gone`: the row is not there (any more), e.g. another replay took it.
   */
  async function replayOne(
    id: string,
    eventId: string | null,
  ): Promise<{ outcome: "replayed" } | { outcome: "gone" } | { outcome: "failed"; error: string }> {
    const [row] = await query<{ subject: string; payload: Buffer }>(db, {
      text: `select subject, payload from ${schema}.dead_letter where id = $1`,
      params: [id],
    });
    if (!row) return { outcome: "gone" };
    const { span, context } = eventSpan(`${row.subject} replay`, eventId ?? undefined, otelContext.active());
    const claim = async (q: Db) =>
      (
        await query(q, {
          text: `delete from ${schema}.dead_letter where id = $1 returning 1 as ok`,
          params: [id],
        })
      ).length === 1;
    try {
      const done = await otelContext.with(context, () => applyStored(row.payload, claim));
      if (!done) return { outcome: "gone" };
      replays?.inc({ consumer: opts.name, outcome: "replayed" });
      logger.info(
        { consumer: opts.name, eventId: done.event.id, deadLetter: id, applied: done.applied },
        "dead letter replayed",
      );
      return { outcome: "replayed" };
    } catch (err) {
      const error = `replay failed: ${(err as Error).message}`.slice(0, 4000);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      // Kept with the new error; the replay counts as one more delivery, and failed_at moves to now
      // (a replay of all takes the least recently failed first, so the next call gets to others).
      await query(db, {
        text: `update ${schema}.dead_letter set error = $2, deliveries = deliveries + 1, failed_at = clock_timestamp() where id = $1`,
        params: [id, error],
      });
      replays?.inc({ consumer: opts.name, outcome: "failed" });
      logger.warn({ consumer: opts.name, eventId, deadLetter: id, error }, "dead letter replay failed");
      return { outcome: "failed", error };
    } finally {
      span.end();
    }
  }

  async function replayDeadLetters(ids?: readonly string[]): Promise<ReplayReport> {
    const report: ReplayReport = { replayed: 0, failed: [], notFound: [], remaining: 0 };
    let rows: { id: string; event_id: string | null }[];
    if (ids) {
      const named = [...new Set(ids)];
      // A UUID in any case names the row; anything else names none.
      const valid = named.filter(isUuid).map((id) => id.toLowerCase());
      rows = await query(db, {
        text: `select id, event_id from ${schema}.dead_letter where consumer = $1 and id = any($2::uuid[]) order by failed_at, id`,
        params: [opts.name, valid],
      });
      const found = new Set(rows.map((r) => r.id));
      report.notFound = named.filter((id) => !found.has(id.toLowerCase()));
    } else {
      rows = await query(db, {
        text: `select id, event_id from ${schema}.dead_letter where consumer = $1 order by failed_at, id limit $2`,
        params: [opts.name, REPLAY_LIMIT],
      });
    }
    for (const { id, event_id } of rows) {
      const result = await replayOne(id, event_id);
      if (result.outcome === "replayed") report.replayed++;
      else if (result.outcome === "gone") report.notFound.push(id);
      else report.failed.push({ id, eventId: event_id, error: result.error });
    }
    const [left] = await query<{ n: number }>(db, {
      text: `select count(*)::int as n from ${schema}.dead_letter where consumer = $1 and not (id = any($2::uuid[]))`,
      params: [opts.name, rows.map((r) => r.id)],
    });
    report.remaining = left?.n ?? 0;
    logger.info(
      {
        consumer: opts.name,
        replayed: report.replayed,
        failed: report.failed.length,
        notFound: report.notFound.length,
        remaining: report.remaining,
      },
      "dead letters replayed",
    );
    return report;
  }

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

  /** Reads durable `name` until it stops (stop() or an error, thrown). */
  async function consumeFrom(name: string): Promise<void> {
    const consumer = await nats.js.consumers.get(stream, name);
    // Pulls expire after 5 s (heartbeats every 2.5 s) instead of nats.js's 30 s: a consumer whose
    // NATS server died (a cluster member SIGKILLed) notices missed heartbeats and pulls again from
    // another server within seconds, not ~40 s later (measured with npm start --nats-cluster).
    const messages = await consumer.consume({
      max_messages: Math.max(concurrency * 2, batchSize * 2),
      expires: PULL_EXPIRES_MS,
    });
    const stop = () => void messages.stop();
    stops.add(stop);
    try {
      if (!running) stop(); // stop() came while this was being set up
      // Messages that arrive together are collected until the next turn of the event loop
      // (they come off the socket in one read), then handled as one batch.
      let pending: JsMsg[] = [];
      let scheduled = false;
      const flush = () => {
        scheduled = false;
        const batch = pending;
        pending = [];
        if (batch.length === 0) return;
        const p = (opts.batch ? processBatch(batch) : processHandled(batch))
          .catch((err) => logger.error({ err }, "event processing crashed"))
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      };
      for await (const m of messages) {
        // Stopping: what is still buffered goes back at once (another replica takes it).
        if (!running) {
          m.nak();
          continue;
        }
        pending.push(m);
        if (pending.length >= batchSize) {
          while (inFlight.size >= concurrency) await Promise.race(inFlight);
          flush();
        } else if (!scheduled) {
          scheduled = true;
          setImmediate(async () => {
            while (inFlight.size >= concurrency) await Promise.race(inFlight);
            flush();
          });
        }
      }
      flush();
    } finally {
      stops.delete(stop);
    }
  }

  const stopAll = () => {
    for (const stop of [...stops]) stop();
  };

  async function run(): Promise<void> {
    let failures = 0;
    while (running) {
      try {
        const names = await ensureConsumers();
        failures = 0;
        // Its own durable and, after a migration, the legacy one; when one fails, both start over.
        const results = await Promise.allSettled(
          names.map((name) =>
            consumeFrom(name).catch((err) => {
              stopAll();
              throw err;
            }),
          ),
        );
        const failure = results.find((r) => r.status === "rejected");
        if (failure) throw failure.reason;
      } catch (err) {
        if (!running) break;
        failures++;
        if (failures === 1 || failures % 20 === 0)
          logger.warn({ consumer: opts.name, err: (err as Error).message }, "consumer interrupted; retrying");
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(failures, 5))));
      }
    }
  }

  let loop: Promise<void> | undefined;
  return {
    name: opts.name,
    replayDeadLetters,
    async start() {
      running = true;
      await prune().catch((err) =>
        logger.warn({ consumer: opts.name, err: (err as Error).message }, "inbox prune failed"),
      );
      prunePeriodically();
      loop = run();
    },
    async stop() {
      running = false;
      clearTimeout(pruneTimer);
      stopAll();
      await loop;
      await Promise.all(inFlight);
      flushAcks();
    },
  };
}

/**
 * The durable consumer's lag gauges, read from JetStream's consumer info at each scrape (one
 * request for both, time-boxed: NaN when NATS does not answer in time or the consumer does not
 * exist yet). Every replica reports the same durable's numbers: aggregate with max, not sum.
 */
function observeConsumer(metrics: Metrics, nats: Nats, durable: { consumer: string; stream: string }): void {
  const info = sharedRead(() => nats.jsm.consumers.info(durable.stream, durable.consumer), {
    timeoutMs: SCRAPE_READ_TIMEOUT_MS,
  });
  const report =
    (value: (i: ConsumerInfo) => number) => async (g: { set(l: typeof durable, v: number): void }) => {
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

/** Dead letters of a consumer, newest first (for operators and tests). */
export async function listDeadLetters(db: Db, schema: string, consumer: string) {
  return query<{
    id: string;
    event_id: string | null;
    subject: string;
    error: string;
    deliveries: number;
    failed_at: Date;
  }>(db, {
    text: `select id, event_id, subject, error, deliveries, failed_at from ${schema}.dead_letter where consumer = $1 order by failed_at desc limit 100`,
    params: [consumer],
  });
}

/**
 * Every consumer's dead letters in `schema`, newest first (the admin port's /dead-letters); `id`
 * names one for POST /dead-letters/replay.
 */
export async function listAllDeadLetters(db: Db, schema: string) {
  return query(db, {
    text: `select id, consumer, event_id, subject, error, deliveries, failed_at from ${schema}.dead_letter order by failed_at desc limit 100`,
    params: [],
  });
}
