/** streamPublisher against a real JetStream: stored in order, deduplicated, refusals surface. */
import { randomBytes } from "node:crypto";
import { type JetStreamManager, jetstreamManager, StorageType } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { StreamPublishError, streamPublisher } from "./nats.ts";

const suffix = randomBytes(4).toString("hex");
const STREAM = `PUB_T_${suffix.toUpperCase()}`;
const SMALL = `PUB_S_${suffix.toUpperCase()}`;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connect({ servers: inject("natsUrl") });
  jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: [`p${suffix}.>`], storage: StorageType.Memory });
  await jsm.streams.add({
    name: SMALL,
    subjects: [`s${suffix}.>`],
    storage: StorageType.Memory,
    max_msg_size: 16,
  });
});
afterAll(async () => {
  await jsm?.streams.delete(STREAM).catch(() => {});
  await jsm?.streams.delete(SMALL).catch(() => {});
  await nc?.close();
});

const messages = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({
    subject: `p${suffix}.E`,
    data: new TextEncoder().encode(`m${from + i}`),
    msgID: `${suffix}-${from + i}`,
    headers: { traceparent: `00-${"1".repeat(32)}-${"2".repeat(16)}-01` },
  }));

describe("streamPublisher", () => {
  it("stores a batch in order with its ids and headers; a re-publish of the same ids stores nothing", async () => {
    const p = streamPublisher(nc);
    await p.publishAll(messages(50));
    await p.publishAll(messages(10)); // the same ids again: acknowledged as duplicates
    expect((await jsm.streams.info(STREAM)).state.messages).toBe(50);
    const first = (await jsm.streams.getMessage(STREAM, { seq: 1 }))!;
    const last = (await jsm.streams.getMessage(STREAM, { seq: 50 }))!;
    expect(first.string()).toBe("m0");
    expect(last.string()).toBe("m49");
    expect(first.header.get("Nats-Msg-Id")).toBe(`${suffix}-0`);
    expect(first.header.get("traceparent")).toMatch(/^00-1{32}-/);
  });

  it("batches running at once each wait for their own acknowledgements", async () => {
    const p = streamPublisher(nc);
    await Promise.all([p.publishAll(messages(20, 100)), p.publishAll(messages(20, 200)), p.publishAll([])]);
    expect((await jsm.streams.info(STREAM)).state.messages).toBe(90);
  });

  it("fails when no stream takes the subject, or the stream refuses a message", async () => {
    const p = streamPublisher(nc);
    const nowhere = [{ subject: `nowhere${suffix}.E`, data: new Uint8Array(1), msgID: "x" }];
    await expect(p.publishAll(nowhere, 2_000)).rejects.toThrow(StreamPublishError);
    const big = [{ subject: `s${suffix}.E`, data: new Uint8Array(1024), msgID: "big" }];
    await expect(p.publishAll(big, 2_000)).rejects.toThrow(/size|maximum/i);
    // The publisher still works afterwards.
    await p.publishAll(messages(1, 300));
  });
});
