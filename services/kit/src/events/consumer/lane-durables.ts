/** The durables of a consumer's lanes (lanes.ts): those of the stream named `<consumer name>-*`. */
import type { ConsumerInfo } from "@nats-io/jetstream";
import type { Nats } from "../nats.ts";

export async function laneDurables(nats: Nats, consumer: string): Promise<Map<string, ConsumerInfo>> {
  const found = new Map<string, ConsumerInfo>();
  for await (const c of nats.jsm.consumers.list(nats.events.stream)) {
    if (c.name.startsWith(`${consumer}-`)) found.set(c.name, c);
  }
  return found;
}
