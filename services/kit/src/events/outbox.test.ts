import { beforeAll, describe, expect, it } from "vitest";
import type { SqlPool } from "../db/sql.ts";
import { inTransaction } from "../db/tx.ts";
import { EVENT_TEST_CONTEXT, useEventsTestBed } from "../testing/events.ts";
import { type DomainEvent, decodeEnvelope } from "./envelope.ts";
import type { Nats } from "./nats.ts";
import { Outbox, type OutboxMessage, outboxRelay } from "./outbox.ts";

const bed = useEventsTestBed("outbox");
const { schema: SCHEMA, prefix: PREFIX, stream: STREAM, silent } = bed;
const ctx = EVENT_TEST_CONTEXT;
let db: SqlPool;
let nats: Nats;
beforeAll(() => {
  ({ db, nats } = bed);
});

const stored = async () => (await nats.jsm.streams.info(STREAM)).state.messages;
const event = (n: number): DomainEvent => ({
  type: "CATEGORY_CREATED",
  entityType: "CATEGORY",
  entityRef: `ref-${n}`,
  entityVersion: 1,
  entityCreated: new Date(),
});
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("not reached in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
function relayOf(outbox: Outbox, pollMs: number) {
  return outboxRelay({ outbox, databaseUrl: bed.databaseUrl, nats, logger: silent, pollMs });
}

describe("outbox -> relay wake-up", () => {
  it("a committed write wakes the relay at once; a rolled-back one wakes nothing and publishes nothing", async () => {
    const outbox = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX });
    let wakes = 0;
    outbox.onRecorded(() => wakes++);
    const relay = relayOf(outbox, 600_000);
    await relay.start();
    try {
      const before = await stored();
      await expect(
        inTransaction(db, async (tx) => {
          await outbox.record(tx, ctx, [event(0)]);
          throw new Error("changed my mind");
        }),
      ).rejects.toThrow(/changed my mind/);
      expect(wakes).toBe(0);

      await inTransaction(db, (tx) => outbox.record(tx, ctx, [event(1), event(2)]));
      expect(wakes).toBe(1);
      await until(async () => (await stored()) === before + 2);
      // A write outside a transaction (one statement) wakes it too.
      await outbox.write(db, ctx, { text: "select 1", params: [] }, [event(3)]);
      expect(wakes).toBe(2);
      await until(async () => (await stored()) === before + 3);
    } finally {
      await relay.stop();
    }
  });

  it("rows another process wrote (no relay of this one woken) are published by polling, once no fast path can hold them", async () => {
    const elsewhere = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX }); // another replica's
    const relay = outboxRelay({
      outbox: new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX }),
      databaseUrl: bed.databaseUrl,
      nats,
      logger: silent,
      pollMs: 100,
      claimAgeMs: 300,
    });
    await relay.start();
    try {
      await new Promise((r) => setTimeout(r, 150)); // past the first poll, which takes every row
      const before = await stored();
      await inTransaction(db, (tx) => elsewhere.record(tx, ctx, [event(10)]));
      const written = Date.now();
      await until(async () => (await stored()) >= before + 1);
      // Polls every 100 ms, but takes the row only once it is claimAgeMs (300 ms) old.
      expect(Date.now() - written).toBeGreaterThanOrEqual(250);
    } finally {
      await relay.stop();
    }
  });
});

describe("the relay's fast path (events published from memory)", () => {
  const backlog = async () =>
    Number(
      (await db.query<{ n: string }>({ text: `select count(*) as n from ${SCHEMA}.outbox`, params: [] }))[0]!
        .n,
    );

  it("publishes a committed write's events without polling, deletes their rows, in commit order", async () => {
    const outbox = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX });
    const relay = relayOf(outbox, 600_000); // no poll after the first
    await relay.start();
    try {
      await until(async () => (await backlog()) === 0);
      const seqBefore = (await nats.jsm.streams.info(STREAM)).state.last_seq;
      for (let i = 0; i < 5; i++) await inTransaction(db, (tx) => outbox.record(tx, ctx, [event(100 + i)]));
      await outbox.write(db, ctx, { text: "select 1", params: [] }, [event(105), event(106)]);
      await until(async () => (await nats.jsm.streams.info(STREAM)).state.last_seq === seqBefore + 7);
      await until(async () => (await backlog()) === 0);
      const refs: string[] = [];
      for (let seq = seqBefore + 1; seq <= seqBefore + 7; seq++) {
        const m = await nats.jsm.streams.getMessage(STREAM, { seq });
        refs.push(decodeEnvelope(m!.data).entityRef);
      }
      expect(refs).toEqual(["ref-100", "ref-101", "ref-102", "ref-103", "ref-104", "ref-105", "ref-106"]);
    } finally {
      await relay.stop();
    }
  });

  it("a failed publish leaves the rows in the outbox; polling publishes them once NATS takes them again", async () => {
    const outbox = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX });
    let refusing = true;
    let attempts = 0;
    const flaky: Nats = {
      ...nats,
      publishAll: (messages, timeoutMs) => {
        attempts++;
        return refusing ? Promise.reject(new Error("NATS is away")) : nats.publishAll(messages, timeoutMs);
      },
    };
    // Polls every 2 s; after a failure it retries sooner (backoff from 200 ms).
    const relay = outboxRelay({
      outbox,
      databaseUrl: bed.databaseUrl,
      nats: flaky,
      logger: silent,
      pollMs: 2_000,
    });
    await relay.start();
    try {
      await until(async () => (await backlog()) === 0);
      const before = await stored();
      await inTransaction(db, (tx) => outbox.record(tx, ctx, [event(200), event(201)]));
      await until(async () => attempts >= 2); // the fast path's, then a poll's
      expect(await backlog()).toBe(2);
      expect(await stored()).toBe(before);
      refusing = false;
      await until(async () => (await backlog()) === 0);
      expect(await stored()).toBe(before + 2);
      // Recovered: the next write goes the fast way again, at once (the next poll is 2 s away).
      await inTransaction(db, (tx) => outbox.record(tx, ctx, [event(202)]));
      await until(async () => (await stored()) === before + 3, 1_000);
    } finally {
      await relay.stop();
    }
  });

  it("a row published twice (a poll claimed it while the fast path had it out) is one event in the stream", async () => {
    const outbox = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX });
    let rows: readonly OutboxMessage[] = [];
    outbox.onRecorded((events) => {
      rows = events;
    });
    const before = await stored();
    await inTransaction(db, (tx) => outbox.record(tx, ctx, [event(300)]));
    expect(rows).toHaveLength(1);
    // This process's fast path publishes it (the relay of another replica polls meanwhile).
    await nats.publishAll(rows.map((r) => ({ subject: r.subject, data: r.payload, msgID: r.id })));
    const other = relayOf(new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX }), 600_000);
    expect(await other.drain()).toBe(1);
    await other.stop();
    expect(await stored()).toBe(before + 1);
    expect(await backlog()).toBe(0);
  });
});
