/**
 * The transactional outbox. A use case records its events with {@link Outbox.record} in the same
 * transaction that writes the entity; {@link outboxRelay} publishes committed rows to JetStream
 * with `Nats-Msg-Id` = event id (a re-publish within the stream's duplicate window is dropped, and
 * consumers' inboxes absorb one after it) and then deletes them.
 *
 * Two ways a committed row reaches JetStream:
 * - **From memory (the fast path).** The process that wrote the events holds them when its write
 *   commits ({@link Outbox.onRecorded} hands them over), so its relay publishes them from there in
 *   the order the commits were acknowledged, at most one publish per `gatherMs` (2 ms: under load,
 *   the events of those milliseconds go as one batch, which JetStream, every consumer and the
 *   delete then handle as one), and deletes the published rows by id, one autocommit statement for
 *   all the publishes that went out while the last delete ran. No transaction, no read of the
 *   outbox.
 * - **Polling (the fallback)**: a transaction claims the oldest rows (FOR UPDATE SKIP LOCKED, so
 *   replicas share an outbox), publishes them, and commits the claim's delete once every publish
 *   was acknowledged. It publishes what no fast path will: the rows of a replica that died between
 *   commit and publish, of a fast path whose publish failed (NATS away: the fast path is off until
 *   a poll publishes again), of writes made before the relay started. A regular poll (every
 *   OUTBOX_POLL_MS) takes rows at least `claimAgeMs` (5 s) old, so that it does not publish what a
 *   running fast path holds; the first poll after start, polls after a failure and `drain()` take
 *   every row. A row published twice all the same (a fast path stalled past `claimAgeMs`, a delete
 *   that failed) is one message in the stream: the duplicate window drops the second.
 *
 * Postgres LISTEN/NOTIFY woke relays before at a cost on every write: NOTIFY serialises the
 * committing transactions of the whole database on one lock and signals every listening backend of
 * the database (every service's relay), for each commit.
 */
import { AsyncResource } from "node:async_hooks";
import type { RequestContext } from "../context.ts";
import { createPgPool, type Db, dbOf, query, type Sql, whenCommitted } from "../db/sql.ts";
import { translateDbError, type UniqueViolations } from "../db/tx.ts";
import { checkDeadline, currentCall, DEADLINE_SETTING } from "../deadline.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import {
  counter,
  METRICS,
  type Metrics,
  observePool,
  onCollect,
  SCRAPE_READ_TIMEOUT_MS,
  sharedRead,
} from "../metrics.ts";
import {
  extractTraceContext,
  injectTraceHeaders,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../otel.ts";
import { SqlBuilder } from "../search/sql-builder.ts";
import type { Worker } from "../worker.ts";
import { buildEnvelope, type DomainEvent, encodeEnvelope } from "./envelope.ts";
import { type Nats, subjectFor, TENANT_HEADER, tenantHeaderValue } from "./nats.ts";

const IDENT = /^[a-z][a-z0-9_]{0,40}$/;
/** Events a relay's fast path holds at most; what commits beyond waits in the outbox for a poll. */
const MAX_HELD = 10_000;
/** The fast path's default shortest interval between two publishes (OUTBOX_GATHER_MS). */
export const DEFAULT_GATHER_MS = 2;

export class Outbox {
  readonly schema: string;
  private readonly subject: (entityType: string, type: string) => string;
  private readonly now: () => Date;
  private readonly listeners = new Set<(events: readonly OutboxMessage[]) => void>();

  constructor(opts: { schema: string; subjectPrefix: string; now?: () => Date }) {
    if (!IDENT.test(opts.schema)) throw new Error(`bad schema name ${opts.schema}`);
    this.schema = opts.schema;
    this.subject = (entityType, type) => subjectFor(opts.subjectPrefix, entityType, type);
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Calls `listener` with the events of every committed write that recorded some, once per commit
   * (after it, in the order commits are acknowledged); returns the unsubscribe.
   */
  onRecorded(listener: (events: readonly OutboxMessage[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private recorded(db: Db, events: readonly OutboxMessage[]): void {
    whenCommitted(db, () => {
      for (const l of this.listeners) l(events);
    });
  }

  /**
   * Writes the events to the outbox in `tx`'s transaction (call inside the use case's transaction);
   * the relay is woken when it commits. One statement, one round trip, for any number of events.
   */
  async record(tx: Db, ctx: RequestContext, events: DomainEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const { sql, messages } = this.compose(ctx, undefined, events);
    await query(tx, sql);
    this.recorded(tx, messages);
    return messages.map((m) => m.id);
  }

  /**
   * One statement that writes an entity (`write`: a data-modifying statement with placeholders
   * $1..$n) and records `events` for it, then wakes the relay: atomic without BEGIN/COMMIT (the
   * statement commits as a whole), one round trip instead of four. For writes that need no read
   * first (creates). The call's deadline is checked before it is sent and, by the outbox's deferred
   * trigger, again when the statement commits (after any lock wait): past it, nothing is written.
   */
  async write(
    db: Db,
    ctx: RequestContext,
    write: Sql,
    events: DomainEvent[],
    unique: UniqueViolations = {},
  ): Promise<string[]> {
    checkDeadline();
    const { sql, messages } = this.compose(ctx, write, events);
    try {
      await query(db, sql);
    } catch (err) {
      throw translateDbError(err, unique);
    }
    if (messages.length) this.recorded(db, messages);
    return messages.map((m) => m.id);
  }

  /** `write` (when given) and the outbox rows of `events` as one statement. */
  private compose(ctx: RequestContext, write: Sql | undefined, events: DomainEvent[]) {
    const headers: Record<string, string> = {};
    injectTraceHeaders(headers);
    const tenant = tenantHeaderValue(ctx.tenant);
    if (tenant !== undefined) headers[TENANT_HEADER] = tenant;
    const messages: OutboxMessage[] = events.map((e) => {
      const envelope = buildEnvelope(ctx, e, newId(), this.now());
      return {
        id: envelope.id,
        subject: this.subject(e.entityType, e.type),
        payload: Buffer.from(encodeEnvelope(envelope)),
        headers,
      };
    });
    const b = new SqlBuilder();
    if (write) b.params.push(...write.params);
    const ctes = write ? [`written as (${write.text})`] : [];
    if (messages.length) {
      // unnest keeps the events' order; `created` (clock_timestamp()) rises row by row.
      ctes.push(`added as (
          insert into ${this.schema}.outbox (id, subject, payload, headers)
          select u.id, u.subject, u.payload, ${b.param(JSON.stringify(headers), "jsonb")}
          from unnest(${b.param(
            messages.map((m) => m.id),
            "uuid[]",
          )}, ${b.param(
            messages.map((m) => m.subject),
            "text[]",
          )}, ${b.param(
            messages.map((m) => m.payload),
            "bytea[]",
          )}) as u (id, subject, payload)
        )`);
    }
    // The outbox's deferred trigger fails the commit if this deadline has passed by then.
    const deadline = messages.length ? currentCall()?.deadline : undefined;
    const guard =
      deadline === undefined
        ? ""
        : `, set_config('${DEADLINE_SETTING}', ${b.param(String(deadline), "text")}, true)`;
    return {
      // Its text follows from the write's and the guard's presence: prepared if the write's is.
      sql: {
        text: `with ${ctes.join(", ")} select 1${guard}`,
        params: b.params,
        prepare: write?.prepare ?? true,
      },
      messages,
    };
  }
}

/** An outbox row: an event as it is published (its trace context and tenant in `headers`). */
export interface OutboxMessage {
  id: string;
  subject: string;
  payload: Buffer;
  headers: Record<string, string>;
}

export interface RelayOptions {
  outbox: Outbox;
  /** Connection URL of the service's role. */
  databaseUrl: string;
  nats: Nats;
  logger: Logger;
  /** Fallback polling interval. */
  pollMs?: number;
  /**
   * The fast path's shortest interval between two publishes (default 2): the events committed
   * meanwhile wait and go as one batch, so a busy writer's events cost JetStream, the consumers and
   * the outbox's delete a batch each instead of one. A write after a quiet interval goes at once.
   */
  gatherMs?: number;
  /**
   * Off: no fast path; a committed write wakes the poll, which claims every row at once (the relay
   * before the fast path; for the bench's comparison). Default on.
   */
  fastPath?: boolean;
  /**
   * How old a row must be for a regular poll to take it (default 5,000 ms): younger ones are the
   * fast path's of some running process. The first poll after start and polls after a failed
   * publish take every row.
   */
  claimAgeMs?: number;
  batchSize?: number;
  /** Distinguishes relays in logs (tests run several). */
  name?: string;
  /**
   * Where the relay reports: events published, its pool, and, read per scrape, the outbox's
   * backlog and oldest event and the schema's stored dead letters ({@link observeOutbox}).
   */
  metrics?: Metrics;
}

interface Row extends OutboxMessage {
  created: Date;
}

/** The relay as a service worker. */
export function outboxRelay(opts: RelayOptions): Worker & { drain(): Promise<number> } {
  const { outbox, nats, logger } = opts;
  const pollMs = opts.pollMs ?? 1000;
  const batchSize = opts.batchSize ?? 200;
  const gatherMs = opts.gatherMs ?? DEFAULT_GATHER_MS;
  const fastPath = opts.fastPath ?? true;
  const claimAgeMs = fastPath ? (opts.claimAgeMs ?? 5_000) : 0;
  // Its commits do not wait for the WAL flush (see drainOnce), for every statement of its own.
  const pool = createPgPool({
    connectionString: opts.databaseUrl,
    max: 2,
    options: "-c synchronous_commit=off",
  });
  const db = dbOf(pool);
  const published = opts.metrics && counter(opts.metrics, METRICS.outboxPublished);
  const publishes = opts.metrics && counter(opts.metrics, METRICS.outboxPublishes);
  if (opts.metrics) {
    observePool(opts.metrics, opts.name ?? "outbox-relay", pool);
    observeOutbox(opts.metrics, outbox.schema, db);
  }
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error(`bad batch size ${batchSize}`);
  /**
   * Takes the oldest rows no other relay holds, at least $2 ms old, and returns them (the module
   * comment says which polls pass 0).
   */
  const claim = (minAgeMs: number): Sql => ({
    text: `delete from ${outbox.schema}.outbox o
      where o.id in (select id from ${outbox.schema}.outbox
                      where created <= clock_timestamp() - make_interval(secs => $2::float8 / 1000)
                      order by created, id limit $1 for update skip locked)
      returning o.id, o.subject, o.payload, o.headers, o.created`,
    params: [batchSize, minAgeMs],
    prepare: true,
  });
  /** The fast path's delete of the rows it published (already gone if a poll claimed them). */
  const remove = (ids: string[]): Sql => ({
    text: `delete from ${outbox.schema}.outbox where id = any($1::uuid[])`,
    params: [ids],
    prepare: true,
  });
  let running = false;
  let wake: (() => void) | undefined;
  /** Set by a committed write the fast path does not take; makes the next poll wait return at once. */
  let notified = false;
  let unsubscribe: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  /** Failed publishes in a row; the fast path is off while there are any (polling retries). */
  let failures = 0;
  /** Committed events the fast path publishes next, in commit order, and its run. */
  const queue: OutboxMessage[] = [];
  let flushing: Promise<void> | undefined;
  /** When the fast path's last publish went out (performance.now()). */
  let lastPublish = Number.NEGATIVE_INFINITY;
  /** Ids the fast path published whose rows are not deleted yet, and the delete that is out. */
  const unremoved: string[] = [];
  let deleting: Promise<void> | undefined;

  /**
   * Waits `ms`, or less: stopping ends every wait; a committed write the fast path does not take
   * ends a poll wait (not a backoff after a failure, which would otherwise spin while writes keep
   * coming).
   */
  const sleep = (ms: number, onWrite: boolean) =>
    new Promise<void>((resolve) => {
      if ((onWrite && notified) || !running) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      wake = () => {
        if (onWrite || !running) done();
      };
    });

  /** Publishes `rows` in order, each in its own producer span, and waits for every acknowledgement. */
  async function publish(rows: readonly OutboxMessage[]): Promise<void> {
    await nats.ensureStream();
    const spans = rows.map((row) => {
      const parent = extractTraceContext(row.headers);
      const span = tracer().startSpan(
        `${row.subject} publish`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            "messaging.system": "nats",
            "messaging.destination.name": row.subject,
            "messaging.message.id": row.id,
          },
        },
        parent,
      );
      const headers: Record<string, string> = {};
      const tenant = row.headers[TENANT_HEADER];
      if (typeof tenant === "string") headers[TENANT_HEADER] = tenant;
      injectTraceHeaders(headers, otelTrace.setSpan(parent, span));
      return { span, message: { subject: row.subject, data: row.payload, msgID: row.id, headers } };
    });
    try {
      await nats.publishAll(spans.map((s) => s.message));
    } catch (err) {
      for (const { span } of spans)
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      for (const { span } of spans) span.end();
    }
  }

  const counted = (n: number) => {
    if (n === 0) return;
    published?.inc(n);
    publishes?.inc();
  };

  /** A failed publish: the fast path stops and polling retries with backoff until one succeeds. */
  function failed(err: unknown): void {
    failures++;
    if (failures === 1 || failures % 20 === 0)
      logger.warn({ err: (err as Error).message, failures }, "outbox relay: publishing failed; retrying");
  }

  /** Leaves committed rows to the poll: its wait ends at once. */
  function wakePoll(): void {
    notified = true;
    wake?.();
  }

  /** Hands committed events to the fast path or, without it (or while it is off), wakes the poll. */
  function committed(events: readonly OutboxMessage[]): void {
    // Off, or so far behind that memory should not grow further: the rows wait in the outbox.
    if (!fastPath || failures > 0 || !running || queue.length >= MAX_HELD) {
      wakePoll();
      return;
    }
    for (const e of events) queue.push(e);
    flushing ??= launch();
  }
  /**
   * Starts the fast path in the relay's own context (bound here, at the service's start), not in
   * the context of the call whose commit handed it events: its statements are no child spans of
   * that call's trace, and that call's deadline does not bound them. After the event loop's
   * current phase, so that commits acknowledged together go as one batch.
   */
  const launch = AsyncResource.bind(() =>
    new Promise<void>((resolve) => setImmediate(resolve)).then(flush).finally(() => {
      flushing = undefined;
    }),
  );

  /**
   * The fast path: publishes what is queued, a batch at a time and at most one per `gatherMs`, and
   * has the published rows deleted. A failed publish empties the queue (the rows stay in the
   * outbox) and leaves them to polling.
   */
  async function flush(): Promise<void> {
    while (queue.length > 0) {
      const wait = lastPublish + gatherMs - performance.now();
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (failures > 0) {
        queue.length = 0;
        return;
      }
      lastPublish = performance.now();
      const batch = queue.splice(0, batchSize);
      try {
        await publish(batch);
      } catch (err) {
        queue.length = 0;
        failed(err);
        wakePoll();
        return;
      }
      counted(batch.length);
      for (const m of batch) unremoved.push(m.id);
      deleting ??= deletePublished();
    }
  }

  /**
   * Deletes the published rows, one statement for all that are waiting, and again for those that
   * were published meanwhile: one delete is out at a time, and the publishes do not wait for it. A
   * failed delete leaves published rows behind, which a later poll publishes again (dropped as
   * duplicates of their event ids within the window, absorbed by consumers' inboxes after it).
   */
  async function deletePublished(): Promise<void> {
    try {
      while (unremoved.length > 0) {
        const ids = unremoved.splice(0, unremoved.length);
        await query(db, remove(ids)).catch((err: Error) =>
          logger.warn(
            { err: err.message, events: ids.length },
            "outbox relay: published rows not deleted; a poll publishes them again",
          ),
        );
      }
    } finally {
      deleting = undefined;
    }
  }

  /**
   * Publishes one batch of rows claimed from the outbox; returns how many. The claim deletes the
   * rows and holds them locked; the transaction commits only after every publish was acknowledged,
   * and a failure rolls the delete back (the rows are pending again). Its commit does not wait for
   * the WAL flush (synchronous_commit off): if Postgres lost a delete in a crash, the event would be
   * published again, which JetStream drops as a duplicate of its event id and consumers' inboxes
   * absorb anyway.
   */
  async function drainOnce(minAgeMs = 0): Promise<number> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("begin");
      const rows = await query<Row>(dbOf(client), claim(minAgeMs));
      // In the order they were written (RETURNING has none).
      rows.sort((a, b) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : 1));
      if (rows.length) await publish(rows);
      await client.query("commit");
      counted(rows.length);
      return rows.length;
    } catch (err) {
      await client.query("rollback").catch((e: Error) => {
        broken = e; // the connection is unusable: the pool drops it
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** Claims and publishes until fewer than a batch of rows at least `minAgeMs` old are left. */
  async function drainPending(minAgeMs: number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await drainOnce(minAgeMs);
      total += n;
      if (n < batchSize) return total;
    }
  }

  /** Every committed row: what the fast path holds, then every row left in the outbox. */
  async function drain(): Promise<number> {
    const held = queue.length;
    await flushing;
    await deleting;
    return held + (await drainPending(0));
  }

  async function run(): Promise<void> {
    let first = true;
    while (running) {
      try {
        notified = false;
        // The first poll and a recovering one take every row; a regular one what no fast path holds.
        await drainPending(first || failures > 0 ? 0 : claimAgeMs);
        first = false;
        failures = 0;
        await sleep(pollMs, true);
      } catch (err) {
        failed(err);
        const delay = Math.min(5_000, 100 * 2 ** Math.min(failures, 6));
        await sleep(delay, false);
      }
    }
  }

  return {
    name: opts.name ?? "outbox-relay",
    drain,
    async start() {
      running = true;
      unsubscribe = outbox.onRecorded(committed);
      loop = run();
    },
    async stop() {
      running = false;
      unsubscribe?.();
      wake?.();
      await loop;
      await flushing;
      await deleting;
      // What the service's last calls wrote (it stops after its RPC server drained), unless NATS
      // was failing: the rows wait for the next relay then.
      if (failures === 0)
        await drainOnce().catch((err) =>
          logger.warn({ err: (err as Error).message }, "outbox relay: the last publish failed; left pending"),
        );
      await pool.end();
    },
  };
}

/**
 * The outbox's gauges, read per scrape with one statement on `db` (the relay's own pool, so a slow
 * read never takes a connection the service's requests need): the backlog, the age of the oldest
 * event (by the database's clock, which wrote `created`), and the schema's stored dead letters per
 * consumer. A database that does not answer within SCRAPE_READ_TIMEOUT_MS gives NaN (dead letters:
 * the last values), and at most one such read is outstanding however often Prometheus scrapes.
 * Every replica of a service reports the same table: aggregate with max, not sum.
 */
function observeOutbox(metrics: Metrics, schema: string, db: Db): void {
  const read = sharedRead(
    async () =>
      (
        await query<{ backlog: number; oldest_age: number; dead_letters: [string, number][] }>(db, {
          text: `select
              (select count(*) from ${schema}.outbox)::float8 as backlog,
              coalesce(extract(epoch from clock_timestamp() - (select min(created) from ${schema}.outbox)), 0)::float8 as oldest_age,
              (select coalesce(json_agg(json_build_array(consumer, n)), '[]'::json)
                 from (select consumer, count(*)::float8 as n from ${schema}.dead_letter group by consumer) d) as dead_letters`,
          params: [],
          prepare: true,
        })
      )[0]!,
    { timeoutMs: SCRAPE_READ_TIMEOUT_MS },
  );
  onCollect(metrics, METRICS.outboxBacklog, async (g) => g.set((await read())?.backlog ?? Number.NaN));
  onCollect(metrics, METRICS.outboxOldestAge, async (g) => g.set((await read())?.oldest_age ?? Number.NaN));
  onCollect(metrics, METRICS.consumerDeadLetters, async (g) => {
    const row = await read();
    if (!row) return;
    g.reset();
    for (const [consumer, n] of row.dead_letters) g.set({ consumer }, n);
  });
}
