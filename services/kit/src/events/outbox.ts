/**
 * The transactional outbox. A use case records its events with {@link Outbox.record} in the same
 * transaction that writes the entity; {@link outboxRelay} publishes committed rows to JetStream
 * with `Nats-Msg-Id` = event id (a re-publish is deduplicated) and deletes them in the transaction
 * that held them while it published. Several relays (replicas) can run on one outbox: rows are
 * claimed with FOR UPDATE SKIP LOCKED.
 *
 * Waking the relay: the process that writes an event runs the relay that publishes it, so the
 * outbox wakes its own relay in-process once the write has committed ({@link Outbox.onRecorded}).
 * Polling (OUTBOX_POLL_MS) is the fallback for rows no running relay was woken for (a replica
 * that died between commit and publish). Postgres LISTEN/NOTIFY did this before at a cost on every
 * write: NOTIFY serialises the committing transactions of the whole database on one lock and
 * signals every listening backend of the database (every service's relay), for each commit.
 */
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

export class Outbox {
  readonly schema: string;
  private readonly subject: (entityType: string, type: string) => string;
  private readonly now: () => Date;
  private readonly listeners = new Set<() => void>();

  constructor(opts: { schema: string; subjectPrefix: string; now?: () => Date }) {
    if (!IDENT.test(opts.schema)) throw new Error(`bad schema name ${opts.schema}`);
    this.schema = opts.schema;
    this.subject = (entityType, type) => subjectFor(opts.subjectPrefix, entityType, type);
    this.now = opts.now ?? (() => new Date());
  }

  /** Calls `listener` after every committed write that recorded events; returns the unsubscribe. */
  onRecorded(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private recorded(db: Db): void {
    whenCommitted(db, () => {
      for (const l of this.listeners) l();
    });
  }

  /**
   * Writes the events to the outbox in `tx`'s transaction (call inside the use case's transaction);
   * the relay is woken when it commits. One statement, one round trip, for any number of events.
   */
  async record(tx: Db, ctx: RequestContext, events: DomainEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const { sql, ids } = this.compose(ctx, undefined, events);
    await query(tx, sql);
    this.recorded(tx);
    return ids;
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
    const { sql, ids } = this.compose(ctx, write, events);
    try {
      await query(db, sql);
    } catch (err) {
      throw translateDbError(err, unique);
    }
    if (events.length) this.recorded(db);
    return ids;
  }

  /** `write` (when given) and the outbox rows of `events` as one statement. */
  private compose(ctx: RequestContext, write: Sql | undefined, events: DomainEvent[]) {
    const trace: Record<string, string> = {};
    injectTraceHeaders(trace);
    const tenant = tenantHeaderValue(ctx.tenant);
    if (tenant !== undefined) trace[TENANT_HEADER] = tenant;
    const envelopes = events.map((e) => ({ e, envelope: buildEnvelope(ctx, e, newId(), this.now()) }));
    const b = new SqlBuilder();
    if (write) b.params.push(...write.params);
    const ctes = write ? [`written as (${write.text})`] : [];
    if (envelopes.length) {
      // unnest keeps the events' order; `created` (clock_timestamp()) rises row by row.
      ctes.push(`added as (
          insert into ${this.schema}.outbox (id, subject, payload, headers)
          select u.id, u.subject, u.payload, ${b.param(JSON.stringify(trace), "jsonb")}
          from unnest(${b.param(
            envelopes.map((x) => x.envelope.id),
            "uuid[]",
          )}, ${b.param(
            envelopes.map((x) => this.subject(x.e.entityType, x.e.type)),
            "text[]",
          )}, ${b.param(
            envelopes.map((x) => Buffer.from(encodeEnvelope(x.envelope))),
            "bytea[]",
          )}) as u (id, subject, payload)
        )`);
    }
    // The outbox's deferred trigger fails the commit if this deadline has passed by then.
    const deadline = envelopes.length ? currentCall()?.deadline : undefined;
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
      ids: envelopes.map((x) => x.envelope.id),
    };
  }
}

export interface RelayOptions {
  outbox: Outbox;
  /** Connection URL of the service's role. */
  databaseUrl: string;
  nats: Nats;
  logger: Logger;
  /** Fallback polling interval. */
  pollMs?: number;
  batchSize?: number;
  /** Distinguishes relays in logs (tests run several). */
  name?: string;
  /**
   * Where the relay reports: events published, its pool, and, read per scrape, the outbox's
   * backlog and oldest event and the schema's stored dead letters ({@link observeOutbox}).
   */
  metrics?: Metrics;
}

interface Row {
  id: string;
  subject: string;
  payload: Buffer;
  headers: Record<string, string>;
  created: Date;
}

/** The relay as a service worker. */
export function outboxRelay(opts: RelayOptions): Worker & { drain(): Promise<number> } {
  const { outbox, nats, logger } = opts;
  const pollMs = opts.pollMs ?? 1000;
  const batchSize = opts.batchSize ?? 200;
  // Its commits do not wait for the WAL flush (see drainOnce), for every statement of its own.
  const pool = createPgPool({
    connectionString: opts.databaseUrl,
    max: 2,
    options: "-c synchronous_commit=off",
  });
  const published = opts.metrics && counter(opts.metrics, METRICS.outboxPublished);
  const publishes = opts.metrics && counter(opts.metrics, METRICS.outboxPublishes);
  if (opts.metrics) {
    observePool(opts.metrics, opts.name ?? "outbox-relay", pool);
    observeOutbox(opts.metrics, outbox.schema, dbOf(pool));
  }
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error(`bad batch size ${batchSize}`);
  /** Takes the oldest rows no other relay holds and returns them. */
  const claim: Sql = {
    text: `delete from ${outbox.schema}.outbox o
      where o.id in (select id from ${outbox.schema}.outbox order by created, id limit $1 for update skip locked)
      returning o.id, o.subject, o.payload, o.headers, o.created`,
    params: [batchSize],
    prepare: true,
  };
  let running = false;
  let wake: (() => void) | undefined;
  /** Set by a committed write; one during a drain makes the next poll wait return at once. */
  let notified = false;
  let unsubscribe: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let failures = 0;

  /**
   * Waits `ms`, or less: stopping ends every wait; a committed write ends a poll wait (not a
   * backoff after a failure, which would otherwise spin while writes keep coming).
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
  async function publish(rows: Row[]): Promise<void> {
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

  /**
   * Publishes one batch of pending rows; returns how many. The claim deletes the rows and holds
   * them locked; the transaction commits only after every publish was acknowledged, and a failure
   * rolls the delete back (the rows are pending again). Its commit does not wait for the WAL flush
   * (synchronous_commit off): if Postgres lost a delete in a crash, the event would be published again,
   * which JetStream drops as a duplicate of its event id and consumers' inboxes absorb anyway.
   */
  async function drainOnce(): Promise<number> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("begin");
      const rows = await query<Row>(dbOf(client), claim);
      // In the order they were written (RETURNING has none).
      rows.sort((a, b) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : 1));
      if (rows.length) await publish(rows);
      await client.query("commit");
      if (rows.length) {
        published?.inc(rows.length);
        publishes?.inc();
      }
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

  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await drainOnce();
      total += n;
      if (n < batchSize) return total;
    }
  }

  async function run(): Promise<void> {
    while (running) {
      try {
        notified = false;
        await drain();
        failures = 0;
        await sleep(pollMs, true);
      } catch (err) {
        failures++;
        const delay = Math.min(5_000, 100 * 2 ** Math.min(failures, 6));
        if (failures === 1 || failures % 20 === 0)
          logger.warn({ err: (err as Error).message, failures }, "outbox relay: publishing failed; retrying");
        await sleep(delay, false);
      }
    }
  }

  return {
    name: opts.name ?? "outbox-relay",
    drain,
    async start() {
      running = true;
      unsubscribe = outbox.onRecorded(() => {
        notified = true;
        wake?.();
      });
      loop = run();
    },
    async stop() {
      running = false;
      unsubscribe?.();
      wake?.();
      await loop;
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
