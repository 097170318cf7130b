/**
 * The transactional outbox. A use case records its events with {@link Outbox.record} in the same
 * transaction that writes the entity; {@link outboxRelay} publishes committed rows to JetStream
 * with `Nats-Msg-Id` = event id (a re-publish is deduplicated), marks them published and prunes
 * them after a retention period. LISTEN/NOTIFY wakes the relay at commit; polling is the fallback.
 * Several relays (replicas) can run on one outbox: rows are claimed with FOR UPDATE SKIP LOCKED.
 */
import type { EntityManager } from "@mikro-orm/postgresql";
import { headers as natsHeaders } from "@nats-io/transport-node";
import pg from "pg";
import type { RequestContext } from "../context.ts";
import { query } from "../db/sql.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../logger.ts";
import {
  extractTraceContext,
  injectTraceHeaders,
  otelContext,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../otel.ts";
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
   * Writes the events to the outbox in `em`'s transaction (call inside the use case's transaction)
   * and notifies the relay, which hears it at commit: one statement, one round trip, for any number
   * of events.
   */
  async record(em: EntityManager, ctx: RequestContext, events: DomainEvent[]): Promise<string[]> {
    if (events.length === 0) return [];
    const trace: Record<string, string> = {};
    injectTraceHeaders(trace);
    const headers = JSON.stringify(trace);
    const envelopes = events.map((e) => ({ e, envelope: buildEnvelope(ctx, e, newId(), this.now()) }));
    await query(em, {
      // unnest keeps the events' order; `created` (clock_timestamp()) rises row by row.
      text: `with added as (
          insert into ${this.schema}.outbox (id, subject, payload, headers)
          select u.id, u.subject, u.payload, $4::jsonb
          from unnest($1::uuid[], $2::text[], $3::bytea[]) as u (id, subject, payload)
        )
        select pg_notify($5, '')`,
      params: [
        envelopes.map((x) => x.envelope.id),
        envelopes.map((x) => this.subject(x.e.type)),
        envelopes.map((x) => Buffer.from(encodeEnvelope(x.envelope))),
        headers,
        this.channel,
      ],
    });
    return envelopes.map((x) => x.envelope.id);
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
}

/** The relay as a service worker. */
export function outboxRelay(opts: RelayOptions): Worker & { drain(): Promise<number> } {
  const { outbox, nats, logger } = opts;
  const pollMs = opts.pollMs ?? 1000;
  const batchSize = opts.batchSize ?? 200;
  const retentionMs = opts.retentionMs ?? 24 * 3600_000;
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 2 });
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

  async function publish(rows: Row[]): Promise<void> {
    await nats.ensureStream();
    await Promise.all(
      rows.map(async (row) => {
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
        const carrier: Record<string, string> = {};
        injectTraceHeaders(carrier, otelTrace.setSpan(parent, span));
        const h = natsHeaders();
        for (const [k, v] of Object.entries(carrier)) h.set(k, v);
        try {
          await otelContext.with(otelTrace.setSpan(parent, span), () =>
            nats.js.publish(row.subject, row.payload, { msgID: row.id, headers: h, timeout: 5_000 }),
          );
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      }),
    );
  }

  /** Publishes one batch of pending rows; returns how many. */
  async function drainOnce(): Promise<number> {
    const client = await pool.connect();
    try {
      await client.query("begin");
      const { rows } = await client.query<Row>(
        `select id, subject, payload, headers from ${outbox.schema}.outbox where published_at is null order by created, id limit $1 for update skip locked`,
        [batchSize],
      );
      if (rows.length) {
        await publish(rows);
        await client.query(
          `update ${outbox.schema}.outbox set published_at = clock_timestamp() where id = any($1::uuid[])`,
          [rows.map((r) => r.id)],
        );
      }
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
