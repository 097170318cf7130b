/**
 * The outbox wakes its relay in-process once a write commits (real Postgres and JetStream): the
 * relays here poll every 10 minutes, so whatever arrives within the test was woken, not polled.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RequestContext } from "../context.ts";
import { createSqlPool, type SqlPool } from "../db/sql.ts";
import { inTransaction } from "../db/tx.ts";
import { createLogger } from "../logger.ts";
import type { ServiceModule } from "../service.ts";
import { createTestDatabase, type TestDatabase } from "../testing/db.ts";
import type { DomainEvent } from "./envelope.ts";
import { kitEventMigrations } from "./migrations.ts";
import { connectNats, type Nats } from "./nats.ts";
import { Outbox, outboxRelay } from "./outbox.ts";

const suffix = randomBytes(4).toString("hex");
const SCHEMA = `kit_outbox_${suffix}`;
const PREFIX = `o${suffix}.events`;
const STREAM = `OUTBOX_T_${suffix.toUpperCase()}`;
const silent = createLogger({ service: "test", level: "silent" });
const ctx: RequestContext = {
  tenant: "t1",
  principal: { userId: "u1", username: "ada", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "test" },
  traceId: "",
};
const module = {
  schema: SCHEMA,
  entities: [],
  migrations: kitEventMigrations,
} as unknown as ServiceModule<unknown>;

let tdb: TestDatabase;
let db: SqlPool;
let nats: Nats;

beforeAll(async () => {
  tdb = await createTestDatabase(inject("adminUrl"), [module]);
  db = createSqlPool(tdb.serviceUrl(SCHEMA), { max: 2 });
  nats = await connectNats(
    inject("natsUrl"),
    "outbox-test",
    { stream: STREAM, subjectPrefix: PREFIX, replicas: 1, maxAgeMs: 600_000, duplicateWindowMs: 60_000 },
    silent,
  );
  await nats.ensureStream();
});
afterAll(async () => {
  await nats?.jsm.streams.delete(STREAM).catch(() => {});
  await nats?.close();
  await db?.end();
  await tdb?.drop();
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
  return outboxRelay({ outbox, databaseUrl: tdb.serviceUrl(SCHEMA), nats, logger: silent, pollMs });
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
