/**
 * Durable JetStream consumers: explicit ack, bounded concurrency, idempotent on event id (an inbox
 * row is written in the handler's transaction), ack only after that transaction commits, `nak`
 * with backoff on transient errors, `term` + a dead-letter row + an error log for poison messages
 * (undecodable, rejected as invalid, or out of deliveries). Trace context comes from the headers.
 *
 * With `handleBatch`, the messages that arrive together (up to `batchSize`) are handled in one
 * transaction: one inbox statement for all, one call of the handler with the new events, one
 * commit, then every ack. Each message keeps its own consume span; the transaction's database
 * spans sit under the first. A batch that fails is handled again one message at a time, so one
 * poison message is dead-lettered alone and the others still commit.
 */

import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import type { EntityManager } from "@mikro-orm/postgresql";
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { Orm } from "../db/orm.ts";
import { query } from "../db/sql.ts";
import { inTransaction } from "../db/tx.ts";
import { isAppError } from "../errors.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import { extractTraceContext, otelContext, otelTrace, SpanKind, SpanStatusCode, tracer } from "../otel.ts";
import type { Worker } from "../service.ts";
import { decodeEnvelope } from "./envelope.ts";
import type { Nats } from "./nats.ts";

export interface ConsumerOptions {
  /** Durable name, `<service>-<purpose>`, e.g. audit-records. */
  name: string;
  /** Event types to receive (default: every event). */
  types?: string[];
  /** Runs in the transaction that also records the event id in the inbox. */
  handle?: (em: EntityManager, event: EventEnvelope) => Promise<void>;
  /** Like `handle`, for every new event of a batch of messages at once (see the module comment). */
  handleBatch?: (em: EntityManager, events: EventEnvelope[]) => Promise<void>;
  /** Messages per batch with handleBatch (default 64). */
  batchSize?: number;
  /** Messages (with handleBatch: batches) processed at once (default 8). */
  concurrency?: number;
  /** Deliveries before an event is dead-lettered (default 10). */
  maxDeliver?: number;
}

export interface ConsumerDeps {
  orm: Orm;
  nats: Nats;
  logger: Logger;
  /** The consuming service's schema (inbox and dead_letter live there). */
  schema: string;
}

/** Redelivery delay after the n-th failed delivery: 0.5 s, 1 s, 2 s ... capped at 30 s. */
export const nakDelay = (deliveries: number) => Math.min(30_000, 500 * 2 ** Math.max(0, deliveries - 1));

export function eventConsumer(deps: ConsumerDeps, opts: ConsumerOptions): Worker {
  const { orm, nats, logger, schema } = deps;
  if (!opts.handle === !opts.handleBatch) throw new Error("a consumer takes handle or handleBatch");
  const handleAll = opts.handleBatch ?? ((em, events) => opts.handle!(em, events[0]!));
  const batchSize = opts.handleBatch ? (opts.batchSize ?? 64) : 1;
  const concurrency = opts.concurrency ?? 8;
  const maxDeliver = opts.maxDeliver ?? 10;
  const prefix = nats.events.subjectPrefix;
  let running = false;
  let loop: Promise<void> | undefined;
  let stopCurrent: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();
  let lastPrune = 0;

  async function ensureConsumer(): Promise<void> {
    await nats.ensureStream();
    const filter = opts.types?.length === 1 ? `${prefix}.${opts.types[0]}` : `${prefix}.>`;
    const config = {
      durable_name: opts.name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: filter,
      ack_wait: nanos(nats.events.ackWaitMs ?? 30_000),
      max_deliver: maxDeliver,
      max_ack_pending: Math.max(concurrency * 4, batchSize * concurrency * 2),
    };
    try {
      await nats.jsm.consumers.info(nats.events.stream, opts.name);
      await nats.jsm.consumers.update(nats.events.stream, opts.name, {
        ack_wait: config.ack_wait,
        max_deliver: maxDeliver,
        max_ack_pending: config.max_ack_pending,
      });
    } catch {
      await nats.jsm.consumers.add(nats.events.stream, config).catch((err: Error) => {
        if (!/already (in use|exists)/i.test(err.message)) throw err;
      });
    }
  }

  async function deadLetter(m: JsMsg, eventId: string | undefined, error: string): Promise<void> {
    logger.error(
      { consumer: opts.name, subject: m.subject, eventId, deliveries: m.info.deliveryCount, error },
      "event dead-lettered",
    );
    await inTransaction(orm, (em) =>
      query(em, {
        text: `insert into ${schema}.dead_letter (id, consumer, event_id, subject, payload, error, deliveries) values ($1, $2, $3, $4, $5, $6, $7)`,
        params: [
          newId(),
          opts.name,
          eventId ?? null,
          m.subject,
          Buffer.from(m.data),
          error.slice(0, 4000),
          m.info.deliveryCount,
        ],
      }),
    );
    m.term(error.slice(0, 200));
  }

  async function process(m: JsMsg): Promise<void> {
    let event: EventEnvelope;
    try {
      event = decodeEnvelope(m.data);
      if (!event.id) throw new Error("envelope without id");
    } catch (err) {
      return deadLetter(m, undefined, `undecodable: ${(err as Error).message}`);
    }
    if (opts.types?.length && !opts.types.includes(event.type)) return m.ack();
    const { span, context } = consumeSpan(m, event.id);
    try {
      await otelContext.with(context, () =>
        inTransaction(orm, async (em) => {
          const fresh = await query(em, {
            text: `insert into ${schema}.inbox (consumer, event_id) values ($1, $2) on conflict do nothing returning 1 as ok`,
            params: [opts.name, event.id],
          });
          if (fresh.length === 0) return; // processed before: acknowledge again, do nothing
          await handleAll(em, [event]);
        }),
      );
      m.ack();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      const poison = isAppError(err) && err.kind === "invalid";
      if (poison || m.info.deliveryCount >= maxDeliver) {
        await deadLetter(m, event.id, `${poison ? "rejected" : "gave up"}: ${(err as Error).message}`).catch(
          (e) => logger.error({ err: e }, "dead-lettering failed"),
        );
      } else {
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
    } finally {
      span.end();
    }
  }

  /** A consume span per message, child of the context its headers carry. */
  function consumeSpan(m: JsMsg, eventId: string) {
    const parent = m.headers
      ? extractTraceContext(
          Object.fromEntries([...m.headers.keys()].map((k) => [k.toLowerCase(), m.headers!.get(k)])),
        )
      : otelContext.active();
    const span = tracer().startSpan(
      `${m.subject} process`,
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

  /** Several messages in one transaction; on failure, each again on its own. */
  async function processBatch(batch: JsMsg[]): Promise<void> {
    if (batch.length === 1) return process(batch[0]!);
    const decoded: { m: JsMsg; event: EventEnvelope }[] = [];
    for (const m of batch) {
      let event: EventEnvelope;
      try {
        event = decodeEnvelope(m.data);
        if (!event.id) throw new Error("envelope without id");
      } catch {
        await process(m); // dead-letters it
        continue;
      }
      if (opts.types?.length && !opts.types.includes(event.type)) m.ack();
      else decoded.push({ m, event });
    }
    if (decoded.length === 0) return;
    const spans = decoded.map(({ m, event }) => consumeSpan(m, event.id));
    try {
      await otelContext.with(spans[0]!.context, () =>
        inTransaction(orm, async (em) => {
          const fresh = await query<{ event_id: string }>(em, {
            text: `insert into ${schema}.inbox (consumer, event_id) select $1, unnest($2::text[]) on conflict do nothing returning event_id`,
            params: [opts.name, decoded.map((d) => d.event.id)],
          });
          const isNew = new Set(fresh.map((r) => r.event_id));
          const events: EventEnvelope[] = [];
          for (const { event } of decoded) {
            if (isNew.delete(event.id)) events.push(event); // a redelivered duplicate only once
          }
          if (events.length) await handleAll(em, events);
        }),
      );
    } catch {
      for (const { span } of spans) span.end();
      // One by one: the poison message alone is dead-lettered, the others commit.
      for (const { m } of decoded) await process(m);
      return;
    }
    for (const { m } of decoded) m.ack();
    for (const { span } of spans) span.end();
  }

  async function prune(): Promise<void> {
    if (Date.now() - lastPrune < 3600_000) return;
    lastPrune = Date.now();
    await inTransaction(orm, (em) =>
      query(em, {
        text: `delete from ${schema}.inbox where consumer = $1 and processed_at < clock_timestamp() - interval '14 days'`,
        params: [opts.name],
      }),
    );
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (running) {
      try {
        await ensureConsumer();
        await prune();
        const consumer = await nats.js.consumers.get(nats.events.stream, opts.name);
        const messages = await consumer.consume({ max_messages: Math.max(concurrency * 2, batchSize * 2) });
        stopCurrent = () => void messages.stop();
        failures = 0;
        // Messages that arrive together are collected until the next turn of the event loop
        // (they come off the socket in one read), then handled as one batch.
        let pending: JsMsg[] = [];
        let scheduled = false;
        const flush = () => {
          scheduled = false;
          const batch = pending;
          pending = [];
          if (batch.length === 0) return;
          const p = processBatch(batch)
            .catch((err) => logger.error({ err }, "event processing crashed"))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        };
        for await (const m of messages) {
          if (!running) break;
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
      } catch (err) {
        if (!running) break;
        failures++;
        if (failures === 1 || failures % 20 === 0)
          logger.warn({ consumer: opts.name, err: (err as Error).message }, "consumer interrupted; retrying");
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(failures, 5))));
      }
    }
  }

  return {
    name: opts.name,
    async start() {
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      stopCurrent?.();
      await loop;
      await Promise.all(inFlight);
    },
  };
}

/** Dead letters of a consumer, newest first (for operators and tests). */
export async function listDeadLetters(em: EntityManager, schema: string, consumer: string) {
  return query<{
    event_id: string | null;
    subject: string;
    error: string;
    deliveries: number;
    failed_at: Date;
  }>(em, {
    text: `select event_id, subject, error, deliveries, failed_at from ${schema}.dead_letter where consumer = $1 order by failed_at desc limit 100`,
    params: [consumer],
  });
}

/** Every consumer's dead letters in `schema`, newest first (the admin port's /dead-letters). */
export async function listAllDeadLetters(em: EntityManager, schema: string) {
  return query(em, {
    text: `select consumer, event_id, subject, error, deliveries, failed_at from ${schema}.dead_letter order by failed_at desc limit 100`,
    params: [],
  });
}
