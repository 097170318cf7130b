import { beforeAll, describe, expect, it } from "vitest";
import type { SqlPool } from "../db/sql.ts";
import { inTransaction } from "../db/tx.ts";
import { EVENT_TEST_CONTEXT, useEventsTestBed } from "../testing/events.ts";
import type { DomainEvent } from "./envelope.ts";
import type { Nats } from "./nats.ts";
import { Outbox, outboxRelay } from "./outbox.ts";

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

  it("rows another process wrote (no relay of this one woken) are published by polling", async () => {
    const elsewhere = new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX }); // another replica's
    const relay = relayOf(new Outbox({ schema: SCHEMA, subjectPrefix: PREFIX }), 100);
    await relay.start();
    try {
      const before = await stored();
      await inTransaction(db, (tx) => elsewhere.record(tx, ctx, [event(10)]));
      await until(async () => (await stored()) >= before + 1);
    } finally {
      await relay.stop();
    }
  });
});
