/**
 * The one NATS setup: a connection that reconnects forever, JetStream, and the event stream
 * (file storage; replicas and retention configurable) created or updated idempotently.
 */
import {
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { connect, type NatsConnection, nanos } from "@nats-io/transport-node";
import type { Logger } from "../logger.ts";

export interface EventStreamConfig {
  /** JetStream stream name, e.g. EVENTS. */
  stream: string;
  /** Subject prefix: events are published on `<prefix>.<TYPE>`. */
  subjectPrefix: string;
  replicas: number;
  /** How long the stream keeps events. */
  maxAgeMs: number;
  /** Window within which a re-published event id is dropped as a duplicate. */
  duplicateWindowMs: number;
  /** How long a consumer's unacknowledged delivery waits before it is redelivered (default 30 s). */
  ackWaitMs?: number;
}

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  events: EventStreamConfig;
  /** Creates/updates the stream once per process (safe to call often). */
  ensureStream(): Promise<void>;
  close(): Promise<void>;
}

/** The subject an event type is published on. */
export const subjectFor = (subjectPrefix: string, type: string) => `${subjectPrefix}.${type}`;

/** Connects (waiting for the server if it is not up yet) and prepares JetStream. */
export async function connectNats(
  url: string,
  name: string,
  events: EventStreamConfig,
  logger: Logger,
): Promise<Nats> {
  const nc = await connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") logger.info({ nats: s.type }, `nats ${s.type}`);
    }
  })();
  const js = jetstream(nc, { timeout: 5_000 });
  const jsm = await jetstreamManager(nc, { timeout: 5_000, checkAPI: false });
  let ensured: Promise<void> | undefined;
  const ensureStream = () => {
    ensured ??= ensureEventStream(jsm, events).catch((err) => {
      ensured = undefined;
      throw err;
    });
    return ensured;
  };
  return {
    nc,
    js,
    jsm,
    events,
    ensureStream,
    close: async () => {
      if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
    },
  };
}

async function ensureEventStream(jsm: JetStreamManager, e: EventStreamConfig): Promise<void> {
  const config = {
    subjects: [`${e.subjectPrefix}.>`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    num_replicas: e.replicas,
    max_age: nanos(e.maxAgeMs),
    duplicate_window: nanos(e.duplicateWindowMs),
  };
  try {
    await jsm.streams.info(e.stream);
    await jsm.streams.update(e.stream, config);
  } catch (err) {
    if (!/stream not found/i.test(String((err as Error).message))) throw err;
    await jsm.streams.add({ name: e.stream, ...config }).catch(async (addErr: Error) => {
      // Created concurrently by another service: fine.
      if (!/already in use|exists/i.test(addErr.message)) throw addErr;
    });
  }
}
