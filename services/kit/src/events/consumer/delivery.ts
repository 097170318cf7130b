/**
 * From a delivered message to an event to apply: what the subject and tenant header say first
 * (skipped without decoding), the envelope, its consume span; and what a failure leads to
 * (redelivery with backoff, or a dead letter).
 */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import type { JsMsg } from "@nats-io/jetstream";
import { type Db, query } from "../../db/sql.ts";
import { isAppError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import {
  extractTraceContext,
  type OtelContext,
  otelContext,
  otelTrace,
  type Span,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../../otel.ts";
import { decodeEnvelope } from "../envelope.ts";
import { eventTypeOfSubject, TENANT_HEADER } from "../nats.ts";
import { type AckBatcher, nakDelay } from "./acks.ts";
import type { ConsumerRuntime } from "./options.ts";

/** The envelope in a message's bytes; throws (`undecodable: ...`) when there is none. */
export function decodeEvent(data: Uint8Array): EventEnvelope {
  try {
    const event = decodeEnvelope(data);
    if (!event.id) throw new Error("envelope without id");
    return event;
  } catch (err) {
    throw new Error(`undecodable: ${(err as Error).message}`);
  }
}

/** A message to apply, with its event and its consume span. */
export interface Item {
  m: JsMsg;
  event: EventEnvelope;
  span: Span;
  context: OtelContext;
}

export interface Deliveries {
  /**
   * The events of `batch` to apply, each once, with its consume span; `again`: redeliveries of an
   * event already among them (settled with it). Messages skipped, undecodable or refused by `check`
   * are settled here.
   */
  collect(batch: JsMsg[], check?: (event: EventEnvelope) => void): Promise<{ items: Item[]; again: JsMsg[] }>;
  /** After a failure: poison, or out of deliveries, is dead-lettered; anything else comes again later. */
  failed(m: JsMsg, event: EventEnvelope, err: unknown): Promise<void>;
  /** After one statement or transaction applied `items`: counted, and acknowledged with `again`. */
  appliedTogether(items: Item[], again: JsMsg[]): void;
  /**
   * Applies `item` alone with `apply` (in its span's context), then acknowledges it; a failure
   * goes to {@link Deliveries.failed}.
   */
  applyAlone(item: Item, apply: () => Promise<unknown>): Promise<void>;
  /** A consumer span for one event (`eventId` unknown: an undecodable dead letter). */
  eventSpan(
    name: string,
    eventId: string | undefined,
    parent: OtelContext,
  ): { span: Span; context: OtelContext };
}

export function deliveries(rt: ConsumerRuntime, acks: AckBatcher): Deliveries {
  const { db, logger, schema, opts, wanted, count } = rt;

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
    if (m.info.deliveryCount > 1) rt.redelivered();
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
    for (const m of skipped) acks.ackSoon(m);
  }

  async function failed(m: JsMsg, event: EventEnvelope, err: unknown): Promise<void> {
    const poison = isAppError(err) && err.kind === "invalid";
    if (poison || m.info.deliveryCount >= rt.maxDeliver) {
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

  /** A consume span per message, child of the context its headers carry. */
  function consumeSpan(m: JsMsg, eventId: string) {
    // The relay writes the trace headers lower-case, as the W3C propagator reads them.
    const parent = m.headers ? extractTraceContext(m.headers as unknown as Headers) : otelContext.active();
    return eventSpan(`${m.subject} process`, eventId, parent);
  }

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

  function appliedTogether(items: Item[], again: JsMsg[]): void {
    rt.statement("batch");
    for (const { m } of items) acks.ackSoon(m);
    for (const m of again) acks.ackSoon(m);
    count("done", items.length);
  }

  async function applyAlone(item: Item, apply: () => Promise<unknown>): Promise<void> {
    try {
      await otelContext.with(item.context, apply);
      rt.statement("single");
      item.m.ack();
      count("done");
    } catch (err) {
      item.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      await failed(item.m, item.event, err);
    }
  }

  return { collect, failed, appliedTogether, applyAlone, eventSpan };
}

/** One of the two ways a consumer applies events (`handle`: handle.ts, `batch`: batch.ts). */
export interface ApplyMode {
  /** Applies the messages that arrived together, and settles each (ack, nak or dead letter). */
  process(batch: JsMsg[]): Promise<void>;
  /**
   * Applies a stored event (a dead letter's) the way a delivery does; `claim` (deleting the dead
   * letter's row) runs in the same transaction where there is one. "before": applied before (the
   * inbox knew it); undefined: nothing to claim (and nothing applied where claiming comes first).
   */
  applyStored(
    event: EventEnvelope,
    claim: (db: Db) => Promise<boolean>,
  ): Promise<"now" | "before" | undefined>;
}
