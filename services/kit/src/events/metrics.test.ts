import net from "node:net";
import { AckPolicy } from "@nats-io/jetstream";
import { beforeAll, describe, expect, it } from "vitest";
import { query, type SqlPool } from "../db/sql.ts";
import { inTransaction } from "../db/tx.ts";
import { createMetrics, type Metrics, SCRAPE_READ_TIMEOUT_MS } from "../metrics.ts";
import { EVENT_TEST_CONTEXT, useEventsTestBed } from "../testing/events.ts";
import { eventConsumer } from "./consumer.ts";
import { buildEnvelope, type DomainEvent, encodeEnvelope } from "./envelope.ts";
import { entityFilter, type Nats, subjectFor } from "./nats.ts";
import { Outbox, outboxRelay } from "./outbox.ts";

const bed = useEventsTestBed("metrics");
const { schema: SCHEMA, prefix: PREFIX, stream: STREAM, silent, suffix } = bed;
const ctx = EVENT_TEST_CONTEXT;
let db: SqlPool;
let nats: Nats;
beforeAll(() => {
  ({ db, nats } = bed);
});

const event = (n: number): DomainEvent => ({
  type: "CATEGORY_CREATED",
  entityType: "CATEGORY",
  entityRef: `ref-${n}`,
  entityVersion: 1,
  entityCreated: new Date(),
});

/** The samples of `name` in the registry's text output, as label sets with values. */
async function samples(
  m: Metrics,
  name: string,
): Promise<{ labels: Record<string, string>; value: number }[]> {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of (await m.registry.metrics()).split("\n")) {
    const match = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line);
    if (!match || match[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/([a-z_][a-z0-9_]*)="((?:[^"\\]|\\.)*)"/gi)].map((l) => [l[1]!, l[2]!]),
    );
    out.push({ labels, value: /^nan$/i.test(match[3]!) ? Number.NaN : Number(match[3]) });
  }
  return out;
}
const value = async (m: Metrics, name: string, labels: Record<string, string> = {}) =>
  (await samples(m, name)).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("outbox metrics", () => {
  it("backlog, age of the oldest event and stored dead letters per consumer, read per scrape; published events counted", async () => {
    const metrics = createMetrics("t");
    const outbox = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX });
    const relay = outboxRelay({
      outbox,
      databaseUrl: bed.databaseUrl,
      nats,
      logger: silent,
      pollMs: 600_000,
      metrics,
    });
    // Not started: the rows wait.
    expect(await value(metrics, "fop_outbox_backlog_events")).toBe(0);
    expect(await value(metrics, "fop_outbox_oldest_event_age_seconds")).toBe(0);
    await inTransaction(db, (tx) => outbox.record(tx, ctx, [event(1), event(2), event(3)]));
    await query(db, {
      text: `insert into ${SCHEMA}.dead_letter (id, consumer, subject, payload, error, deliveries)
             values (gen_random_uuid(), 'a-one', 's', '\\x00', 'e', 1), (gen_random_uuid(), 'a-one', 's', '\\x00', 'e', 1),
                    (gen_random_uuid(), 'b-two', 's', '\\x00', 'e', 10)`,
      params: [],
    });
    await new Promise((r) => setTimeout(r, 300)); // past the reuse of the last read
    expect(await value(metrics, "fop_outbox_backlog_events")).toBe(3);
    const age = (await value(metrics, "fop_outbox_oldest_event_age_seconds"))!;
    expect(age).toBeGreaterThan(0.25);
    expect(age).toBeLessThan(30);
    const dead = await samples(metrics, "fop_consumer_dead_letters");
    expect(dead.sort((a, b) => (a.labels.consumer! < b.labels.consumer! ? -1 : 1))).toEqual([
      { labels: { consumer: "a-one", service: "t" }, value: 2 },
      { labels: { consumer: "b-two", service: "t" }, value: 1 },
    ]);
    // The relay's pool is reported beside the service's.
    expect(
      await value(metrics, "db_client_connection_max", { db_client_connection_pool_name: "outbox-relay" }),
    ).toBe(2);

    expect(await relay.drain()).toBe(3);
    await new Promise((r) => setTimeout(r, 300));
    expect(await value(metrics, "fop_outbox_backlog_events")).toBe(0);
    expect(await value(metrics, "fop_outbox_oldest_event_age_seconds")).toBe(0);
    expect(await value(metrics, "fop_outbox_published_events_total")).toBe(3);
    await relay.stop();
  });

  it("a database that does not answer: the scrape still answers in time, with NaN", async () => {
    // Accepts connections and never says a word (a Postgres behind a network partition).
    const sockets = new Set<net.Socket>();
    const blackhole = net.createServer((s) => void sockets.add(s));
    await new Promise<void>((r) => blackhole.listen(0, "127.0.0.1", r));
    const port = (blackhole.address() as net.AddressInfo).port;
    const metrics = createMetrics("t");
    const relay = outboxRelay({
      outbox: new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX }),
      databaseUrl: `postgres://nobody@127.0.0.1:${port}/none`,
      nats,
      logger: silent,
      metrics,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const scrape = await samples(metrics, "fop_outbox_backlog_events");
        expect(Date.now() - started).toBeLessThan(SCRAPE_READ_TIMEOUT_MS + 1000);
        expect(scrape.map((s) => s.value)).toEqual([Number.NaN]);
        expect(await value(metrics, "fop_outbox_oldest_event_age_seconds")).toBeNaN();
      }
      // One read outstanding, not one per scrape.
      expect(sockets.size).toBe(1);
    } finally {
      for (const s of sockets) s.destroy();
      blackhole.close();
      await relay.stop().catch(() => {});
    }
  });
});

describe("consumer metrics", () => {
  it("lag and pending acknowledgements from JetStream, redeliveries counted per durable consumer", async () => {
    const name = `metrics-${suffix}`;
    const metrics = createMetrics("t");
    // The durable exists before its consumer runs: events published meanwhile are its lag.
    // (Of an entity type of its own: the stream holds the outbox test's events too.)
    await nats.jsm.consumers.add(STREAM, {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      filter_subject: entityFilter(PREFIX, "LAG_TEST"),
    });
    const failOnce = new Set(["ref-2"]);
    const worker = eventConsumer(
      { db, nats, logger: silent, metrics, schema: SCHEMA },
      {
        name,
        entityType: "LAG_TEST",
        // One event per transaction: a failure in a shared one is retried alone at once, which
        // would hide the redelivery counted here.
        transactionSize: 1,
        handle: async (_tx, e) => {
          if (failOnce.delete(e.entityRef)) throw new Error("transient");
        },
      },
    );
    const envelopes = [1, 2, 3].map((n) =>
      buildEnvelope(
        ctx,
        { ...event(n), type: "LAG_TEST_DELETED", entityType: "LAG_TEST" },
        crypto.randomUUID(),
        new Date(),
      ),
    );
    await nats.publishAll(
      envelopes.map((e) => ({
        subject: subjectFor(PREFIX, e.entityType, e.type),
        data: encodeEnvelope(e),
        msgID: e.id,
      })),
    );
    const durable = { consumer: name, stream: STREAM };
    expect(await value(metrics, "fop_consumer_lag_messages", durable)).toBe(3);
    expect(await value(metrics, "fop_consumer_ack_pending_messages", durable)).toBe(0);

    await worker.start();
    try {
      await until(
        async () =>
          (await value(metrics, "fop_consumer_events_total", { consumer: name, outcome: "done" })) === 3,
      );
      expect(
        await value(metrics, "fop_consumer_events_total", { consumer: name, outcome: "redelivered" }),
      ).toBe(1);
      expect(await value(metrics, "fop_consumer_redeliveries_total", durable)).toBe(1);
      // Both from one read of the consumer's info (reused for a moment: a scrape reads it once).
      await until(
        async () =>
          (await value(metrics, "fop_consumer_ack_pending_messages", durable)) === 0 &&
          (await value(metrics, "fop_consumer_lag_messages", durable)) === 0,
      );
    } finally {
      await worker.stop();
    }
  });

  it("a consumer JetStream does not know reports NaN, and the scrape still answers", async () => {
    const metrics = createMetrics("t");
    eventConsumer(
      { db, nats, logger: silent, metrics, schema: SCHEMA },
      { name: `never-started-${suffix}`, handle: async () => {} },
    );
    expect(
      await value(metrics, "fop_consumer_lag_messages", {
        consumer: `never-started-${suffix}`,
        stream: STREAM,
      }),
    ).toBeNaN();
  });
});
