/** Events in a service test's stream: what the service emitted, and what a test publishes for it to consume. */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { headers } from "@nats-io/transport-node";
import { expect } from "vitest";
import { buildEnvelope, type DomainEvent, decodeEnvelope, encodeEnvelope } from "../events/envelope.ts";
import { type Nats, subjectFor, TENANT_HEADER } from "../events/nats.ts";
import { newId } from "../ids.ts";
import { EVENT_TEST_CONTEXT } from "./events.ts";

/** Every event in `stream` (a test's own, small) in stream order, with its subject. */
export async function streamEvents(
  nats: Pick<Nats, "jsm">,
  stream: string,
): Promise<(EventEnvelope & { subject: string })[]> {
  const { state } = await nats.jsm.streams.info(stream);
  const out: (EventEnvelope & { subject: string })[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await nats.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m) out.push(Object.assign(decodeEnvelope(m.data), { subject: m.subject }));
  }
  return out;
}

/** The events of `entityRef` in `stream` as `[type, entity version]` pairs, in stream order. */
export async function entityEvents(
  nats: Pick<Nats, "jsm">,
  stream: string,
  entityRef: string,
): Promise<[string, number][]> {
  return (await streamEvents(nats, stream))
    .filter((e) => e.entityRef === entityRef)
    .map((e) => [e.type, Number(e.entityVersion)]);
}

/** Polls `stream` until the events of `entityRef` are `expected` ([type, entity version], in order). */
export const expectEntityEvents = (
  nats: Pick<Nats, "jsm">,
  stream: string,
  entityRef: string,
  expected: [string, number][],
) =>
  expect
    .poll(() => entityEvents(nats, stream, entityRef), { timeout: 10_000, interval: 100 })
    .toEqual(expected);

/**
 * Publishes `event` of `tenant` onto the stream as a producing service's relay does (envelope,
 * `<prefix>.<ENTITY>.<TYPE>`, tenant header); `msgId` defaults to the event id. The envelope, its
 * stream sequence, and `publish` to send the same bytes again under another message id.
 */
export async function publishEvent(
  nats: Pick<Nats, "js">,
  subjectPrefix: string,
  tenant: string,
  event: DomainEvent,
  msgId?: string,
): Promise<{ envelope: EventEnvelope; seq: number; publish: (msgId: string) => Promise<{ seq: number }> }> {
  const envelope = buildEnvelope(
    { ...EVENT_TEST_CONTEXT, tenant, client: { api: "RPC", rawInfo: "test" } },
    event,
    newId(),
    new Date(),
  );
  const bytes = encodeEnvelope(envelope);
  const publish = (id: string) => {
    const h = headers();
    h.set(TENANT_HEADER, tenant);
    return nats.js.publish(subjectFor(subjectPrefix, event.entityType, event.type), bytes, {
      msgID: id,
      headers: h,
    });
  };
  const { seq } = await publish(msgId ?? envelope.id);
  return { envelope, seq, publish };
}

/** Waits until the durable `consumer` of `stream` has acknowledged every message up to `seq`. */
export async function consumedUpTo(
  nats: Pick<Nats, "jsm">,
  stream: string,
  consumer: string,
  seq: number,
  timeoutMs = 10_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const info = await nats.jsm.consumers.info(stream, consumer);
    if (info.ack_floor.stream_seq >= seq) return;
    if (Date.now() > until) throw new Error(`${consumer} has not consumed ${stream} up to ${seq}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
