/** What a service under test emitted: the events in its test stream, decoded. */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { decodeEnvelope } from "../events/envelope.ts";
import type { Nats } from "../events/nats.ts";

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
