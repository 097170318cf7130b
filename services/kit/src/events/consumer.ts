/**
 * Durable JetStream consumers: explicit ack, bounded concurrency, idempotent on event id (an inbox
 * row is written in the handler's transaction), ack only after that transaction commits, `nak`
 * with backoff on transient errors, `term` + a dead-letter row + an error log for poison messages
 * (undecodable, rejected as invalid, or out of deliveries). Trace context comes from the headers.
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
  handle: (em: EntityManager, event: EventEnvelope) => Promise<void>;
  /** Messages processed at once (default 8). */
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
      max_ack_pending: concurrency * 4,
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
          "messaging.message.id": event.id,
        },
      },
      parent,
    );
    try {
      await otelContext.with(otelTrace.setSpan(parent, span), () =>
        inTransaction(orm, async (em) => {
          const fresh = await query(em, {
            text: `insert into ${schema}.inbox (consumer, event_id) values ($1, $2) on conflict do nothing returning 1 as ok`,
            params: [opts.name, event.id],
          });
          if (fresh.length === 0) return; // processed before: acknowledge again, do nothing
          await opts.handle(em, event);
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
        const messages = await consumer.consume({ max_messages: concurrency * 2 });
        stopCurrent = () => void messages.stop();
        failures = 0;
        for await (const m of messages) {
          if (!running) break;
          while (inFlight.size >= concurrency) await Promise.race(inFlight);
          const p = process(m)
            .catch((err) => logger.error({ err }, "event processing crashed"))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
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
