/**
 * The transactional outbox. A use case records its events with {@link Outbox.record} in the same
 * transaction that writes the entity; {@link outboxRelay} publishes committed rows to JetStream
 * with `Nats-Msg-Id` = event id (a re-publish is deduplicated), marks them published and prunes
 * them after a retention period. LISTEN/NOTIFY wakes the relay at commit; polling is the fallback.
 * Several relays (replicas) can run on one outbox: rows are claimed with FOR UPDATE SKIP LOCKED.
 */
import pg from "pg";
import type { RequestContext } from "../context.ts";
import { type Db, query, type Sql } from "../db/sql.ts";
import { translateDbError, type UniqueViolations } from "../db/tx.ts";
import { checkDeadline, currentCall, DEADLINE_SETTING } from "../deadline.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import {
  extractTraceContext,
  injectTraceHeaders,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../otel.ts";
import { SqlBuilder } from "../search/sql-builder.ts";
import type { Worker } from "../service.ts";
import { buildEnvelope, type DomainEvent, encodeEnvelope } from "./envelope.ts";
import { type Nats, subjectFor } from "./nats.ts";

const IDENT = /^[a-z][a-z0-9_]{0,40}$/;

export class Outbox {
  readonly schema: string;
  readonly channel: string;
  private readonly subject: (type: string) => string;
  private readonly now: () => Date;

  constructor(opts: { schema: string; subjectPrefix: string; now?: () => Date }) {
    if (!IDENT.test(opts.schema)) throw new Error(`bad schema name ${opts.schema}`);
    this.schema = opts.schema;
    this.channel = `${opts.schema}_outbox`;
    this.subject = (type) => subjectFor(opts.subjectPrefix, type);
    this.now = opts.now ?? (() => new Date());
  }

  /**
   * Writes the events to the outbox in `tx`'s transaction (call inside the use case's transaction)
   * and notifies the relay, which hears it at commit: one statement, one round trip, for any number
   * of events.
   */
  async record(tx: Db, ctx: RequestContext, events: DomainEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const { sql, ids } = this.compose(ctx, undefined, events);
    await query(tx, sql);
    return ids;
  }

  /**
   * One statement that writes an entity (`write`: a data-modifying statement with placeholders
   * $1..$n) and records `events` for it, notifying the relay: atomic without BEGIN/COMMIT (the
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
    return ids;
  }

  /** `write` (when given) and the outbox rows of `events` as one statement, with pg_notify. */
  private compose(ctx: RequestContext, write: Sql | undefined, events: DomainEvent[]) {
    const trace: Record<string, string> = {};
    injectTraceHeaders(trace);
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
            envelopes.map((x) => this.subject(x.e.type)),
            "text[]",
          )}, ${b.param(
            envelopes.map((x) => Buffer.from(encodeEnvelope(x.envelope))),
            "bytea[]",
          )}) as u (id, subject, payload)
        )`);
    }
    const notify = envelopes.length ? `pg_notify(${b.param(this.channel, "text")}, '')` : "1";
    // The outbox's deferred trigger fails the commit if this deadline has passed by then.
    const deadline = envelopes.length ? currentCall()?.deadline : undefined;
    const guard =
      deadline === undefined
        ? ""
        : `, set_config('${DEADLINE_SETTING}', ${b.param(String(deadline), "text")}, true)`;
    return {
      // Its text follows from the write's and the guard's presence: prepared if the write's is.
      sql: {
        text: `with ${ctes.join(", ")} select ${notify}${guard}`,
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
  /** Published rows are deleted after this long. */
  retentionMs?: number;
  /** Distinguishes relays in logs (tests run several). */
  name?: string;
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
  const retentionMs = opts.retentionMs ?? 24 * 3600_000;
  // Its commits do not wait for the WAL flush (see drainOnce), for every statement of its own.
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: 2,
    options: "-c synchronous_commit=off",
  });
  pool.on("error", () => {}); // an idle connection lost: the pool replaces it
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error(`bad batch size ${batchSize}`);
  /** Marks the oldest pending rows published and returns them (prepared: planned once). */
  const claim = {
    name: `outbox_claim_${outbox.schema}`,
    text: `update ${outbox.schema}.outbox o set published_at = clock_timestamp()
      where o.id in (select id from ${outbox.schema}.outbox where published_at is null
                     order by created, id limit $1 for update skip locked)
      returning o.id, o.subject, o.payload, o.headers, o.created`,
    values: [batchSize],
  };
  let listener: pg.Client | undefined;
  let running = false;
  let wake: (() => void) | undefined;
  /** Set by NOTIFY; a notification during a drain makes the next sleep return at once. */
  let notified = false;
  let loop: Promise<void> | undefined;
  let failures = 0;
  let lastPrune = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (notified || !running) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  async function listen(): Promise<void> {
    try {
      const client = new pg.Client({ connectionString: opts.databaseUrl });
      client.on("notification", () => {
        notified = true;
        wake?.();
      });
      client.on("error", (err) => {
        logger.warn({ err }, "outbox listener lost; polling until it is back");
        listener = undefined;
        client.end().catch(() => {});
      });
      await client.connect();
      await client.query(`listen ${outbox.channel}`);
      listener = client;
    } catch (err) {
      logger.warn({ err }, "outbox listener could not connect; polling");
    }
  }

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
   * Publishes one batch of pending rows; returns how many. The claim marks the rows published and
   * locks them; the transaction commits only after every publish was acknowledged, and a failure
   * rolls the marks back. Its commit does not wait for the WAL flush
   * (synchronous_commit off): if Postgres lost a mark in a crash, the event would be published again,
   * which JetStream drops as a duplicate of its event id and consumers' inboxes absorb anyway.
   */
  async function drainOnce(): Promise<number> {
    const client = await pool.connect();
    try {
      await client.query("begin");
      const { rows } = await client.query<Row>(claim);
      // In the order they were written (RETURNING has none).
      rows.sort((a, b) => a.created.getTime() - b.created.getTime() || (a.id < b.id ? -1 : 1));
      if (rows.length) await publish(rows);
      await client.query("commit");
      return rows.length;
    } catch (err) {
      await client.query("rollback").catch(() => {});
      throw err;
    } finally {
      client.release();
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

  async function prune(): Promise<void> {
    if (Date.now() - lastPrune < 60_000) return;
    lastPrune = Date.now();
    await pool.query(
      `delete from ${outbox.schema}.outbox where published_at < clock_timestamp() - $1::interval`,
      [`${retentionMs} milliseconds`],
    );
  }

  async function run(): Promise<void> {
    while (running) {
      try {
        if (!listener) await listen();
        notified = false;
        await drain();
        await prune();
        failures = 0;
        await sleep(pollMs);
      } catch (err) {
        failures++;
        const delay = Math.min(5_000, 100 * 2 ** Math.min(failures, 6));
        if (failures === 1 || failures % 20 === 0)
          logger.warn({ err: (err as Error).message, failures }, "outbox relay: publishing failed; retrying");
        await sleep(delay);
      }
    }
  }

  return {
    name: opts.name ?? "outbox-relay",
    drain,
    async start() {
      running = true;
      loop = run();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
