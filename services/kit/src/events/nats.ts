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
import {
  connect,
  createInbox,
  type Msg,
  type NatsConnection,
  nanos,
  headers as natsHeaders,
} from "@nats-io/transport-node";
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
  /**
   * How long a consumer keeps an applied event's inbox row, the record that makes a redelivery a
   * no-op (default 14 days); older rows are deleted every min(1 h, half of it) while it runs.
   */
  inboxRetentionMs?: number;
}

export interface Nats {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  events: EventStreamConfig;
  /** Creates/updates the stream once per process (safe to call often). */
  ensureStream(): Promise<void>;
  /** Publishes to JetStream and waits for every acknowledgement (see {@link streamPublisher}). */
  publishAll(messages: readonly StreamMessage[], timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * The subject an event is published on: `<prefix>.<ENTITY_TYPE>.<TYPE>`, e.g.
 * `events.PICK_JOB.PICK_JOB_CREATED`, so that a consumer of one entity's events filters on
 * `<prefix>.<ENTITY_TYPE>.>` and JetStream delivers it nothing else. (Before this hierarchy events
 * went to `<prefix>.<TYPE>`; such "legacy" subjects are still read: see {@link eventTypeOfSubject}
 * and the consumer's migration.)
 */
export const subjectFor = (subjectPrefix: string, entityType: string, type: string) =>
  `${subjectPrefix}.${entityType || "NONE"}.${type}`;

/** The filter of a consumer of one entity type's events (every event without one). */
export const entityFilter = (subjectPrefix: string, entityType?: string) =>
  entityType ? `${subjectPrefix}.${entityType}.>` : `${subjectPrefix}.>`;

/** The filter matching only legacy (pre-hierarchy) subjects, `<prefix>.<TYPE>`. */
export const legacyFilter = (subjectPrefix: string) => `${subjectPrefix}.*`;

/** The event type a subject names (its last token; also right for a legacy subject). */
export const eventTypeOfSubject = (subject: string) => subject.slice(subject.lastIndexOf(".") + 1);

/**
 * The header that carries an event's tenant, so that a consumer can decide before decoding the
 * envelope (lower-case, as the trace headers).
 */
export const TENANT_HEADER = "fop-tenant";

/** The tenant as a header value; undefined when it cannot be one (a consumer decodes then). */
export const tenantHeaderValue = (tenant: string): string | undefined =>
  /^[\x20-\x7e]{1,200}$/.test(tenant) ? tenant : undefined;

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
  const publisher = streamPublisher(nc);
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
    publishAll: publisher.publishAll,
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

/** A message for a JetStream stream: `msgID` makes a re-publish within the window a no-op. */
export interface StreamMessage {
  subject: string;
  data: Uint8Array;
  msgID: string;
  headers?: Record<string, string>;
}

/** How a publish failed: the stream refused it, nothing stored the subject, or no answer came. */
export class StreamPublishError extends Error {
  override name = "StreamPublishError";
}

/**
 * Publishing many messages to JetStream at once. `js.publish` is a request per message (a timer, an
 * inbox and two Error objects with stack traces each, before any answer); here every message is a
 * plain publish whose reply subject is a token on ONE subscription of this process, and a batch
 * waits for all of its PubAcks under one timer. Same guarantees: a message counts as stored only
 * when the stream acknowledged it (a duplicate `msgID` is acknowledged as such); a refusal, "no
 * responders" (no stream takes the subject) or the timeout fails the batch.
 */
export function streamPublisher(nc: NatsConnection): {
  publishAll(messages: readonly StreamMessage[], timeoutMs?: number): Promise<void>;
} {
  const prefix = createInbox();
  interface Batch {
    remaining: number;
    done: (err?: Error) => void;
  }
  const waiting = new Map<string, Batch>();
  let next = 0;
  let subscribed = false;

  const answer = (err: Error | null, m: Msg) => {
    const token = m.subject.slice(prefix.length + 1);
    const batch = waiting.get(token);
    if (!batch) return; // after its batch timed out or failed
    waiting.delete(token);
    if (err) return batch.done(new StreamPublishError(err.message));
    if (m.headers?.code === 503) return batch.done(new StreamPublishError("no stream takes this subject"));
    let ack: { error?: { description?: string }; seq?: number };
    try {
      ack = m.json();
    } catch {
      return batch.done(new StreamPublishError("unreadable acknowledgement"));
    }
    if (ack.error) return batch.done(new StreamPublishError(ack.error.description ?? "refused"));
    if (--batch.remaining === 0) batch.done();
  };

  return {
    publishAll(messages, timeoutMs = 5_000) {
      if (messages.length === 0) return Promise.resolve();
      if (!subscribed) {
        nc.subscribe(`${prefix}.*`, { callback: answer });
        subscribed = true;
      }
      return new Promise<void>((resolve, reject) => {
        const tokens: string[] = [];
        let settled = false;
        const batch: Batch = {
          remaining: messages.length,
          done: (err) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            for (const t of tokens) waiting.delete(t);
            if (err) reject(err);
            else resolve();
          },
        };
        const timer = setTimeout(
          () => batch.done(new StreamPublishError(`no acknowledgement within ${timeoutMs} ms`)),
          timeoutMs,
        );
        try {
          for (const msg of messages) {
            const token = String(next++);
            tokens.push(token);
            waiting.set(token, batch);
            const h = natsHeaders();
            h.set("Nats-Msg-Id", msg.msgID);
            for (const [k, v] of Object.entries(msg.headers ?? {})) h.set(k, v);
            nc.publish(msg.subject, msg.data, { reply: `${prefix}.${token}`, headers: h });
          }
        } catch (err) {
          batch.done(new StreamPublishError((err as Error).message));
        }
      });
    },
  };
}
