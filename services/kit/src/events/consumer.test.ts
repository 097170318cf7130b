/**
 * An event survives a dead letter that cannot be written (real Postgres and JetStream): a consumer
 * out of deliveries whose dead_letter insert fails (the database refusing it, as when it is down)
 * neither terminates nor loses the event - JetStream delivers it again (its max_deliver is
 * unlimited; the kit counts deliveries) until it is applied or its dead letter is written.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RequestContext } from "../context.ts";
import { createSqlPool, query, type SqlPool } from "../db/sql.ts";
import { newId } from "../ids.ts";
import { createLogger } from "../logger.ts";
import type { ServiceModule } from "../service.ts";
import { createTestDatabase, type TestDatabase } from "../testing/db.ts";
import { eventConsumer } from "./consumer.ts";
import { buildEnvelope, encodeEnvelope } from "./envelope.ts";
import { kitEventMigrations } from "./migrations.ts";
import { connectNats, type Nats } from "./nats.ts";

const suffix = randomBytes(4).toString("hex");
const SCHEMA = `kit_consumer_${suffix}`;
const PREFIX = `c${suffix}.events`;
const STREAM = `CONSUMER_T_${suffix.toUpperCase()}`;
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
  db = createSqlPool(tdb.serviceUrl(SCHEMA), { max: 4 });
  nats = await connectNats(
    inject("natsUrl"),
    "consumer-test",
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

async function until(check: () => Promise<boolean> | boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Publishes one event of `type`; returns its id. */
async function publish(type: string): Promise<string> {
  const id = newId();
  const envelope = buildEnvelope(
    ctx,
    { type, entityType: "CATEGORY", entityRef: newId(), entityVersion: 1, entityCreated: new Date() },
    id,
    new Date(),
  );
  await nats.publishAll([{ subject: `${PREFIX}.${type}`, data: encodeEnvelope(envelope), msgID: id }]);
  return id;
}

/** Makes every dead_letter insert fail (the database refusing it) until the returned function runs. */
async function blockDeadLetters(): Promise<() => Promise<void>> {
  await query(db, {
    text: `alter table ${SCHEMA}.dead_letter add constraint blocked check (false) not valid`,
    params: [],
  });
  return async () => {
    await query(db, { text: `alter table ${SCHEMA}.dead_letter drop constraint blocked`, params: [] });
  };
}

const deadLetters = (consumer: string) =>
  query<{ event_id: string; deliveries: number; error: string }>(db, {
    text: `select event_id, deliveries, error from ${SCHEMA}.dead_letter where consumer = $1`,
    params: [consumer],
  });
const applied = async (consumer: string, eventId: string) =>
  (
    await query(db, {
      text: `select 1 from ${SCHEMA}.inbox where consumer = $1 and event_id = $2`,
      params: [consumer, eventId],
    })
  ).length === 1;

/** A consumer of `type` that gives up after one failed delivery; `fail` decides each delivery. */
function consumerOf(name: string, type: string, fail: () => boolean) {
  const deliveries: number[] = [];
  const worker = eventConsumer(
    { db, nats, logger: silent, schema: SCHEMA },
    {
      name,
      types: [type],
      maxDeliver: 1,
      handle: async () => {
        deliveries.push(Date.now());
        if (fail()) throw new Error("the event cannot be applied now");
      },
    },
  );
  return { worker, deliveries };
}

describe("an event whose dead letter cannot be written", () => {
  it("is delivered again (not terminated) and applied once the cause is gone", async () => {
    const unblock = await blockDeadLetters();
    let failing = true;
    const { worker, deliveries } = consumerOf("survive-apply", "SURVIVE_APPLY", () => failing);
    await worker.start();
    try {
      const eventId = await publish("SURVIVE_APPLY");
      // Out of deliveries at the first failure, its dead letter refused: it comes again, and again.
      await until(() => deliveries.length >= 3);
      expect(await deadLetters("survive-apply")).toEqual([]);
      expect(await applied("survive-apply", eventId)).toBe(false);
      const info = await nats.jsm.consumers.info(STREAM, "survive-apply");
      expect(info.config.max_deliver).toBe(-1);

      failing = false;
      await until(() => applied("survive-apply", eventId));
      expect(await deadLetters("survive-apply")).toEqual([]);
      await until(async () => (await nats.jsm.consumers.info(STREAM, "survive-apply")).num_ack_pending === 0);
    } finally {
      await worker.stop();
      await unblock();
    }
  });

  it("is delivered again until its dead letter is written", async () => {
    const unblock = await blockDeadLetters();
    const { worker, deliveries } = consumerOf("survive-dead-letter", "SURVIVE_DL", () => true);
    await worker.start();
    try {
      const eventId = await publish("SURVIVE_DL");
      await until(() => deliveries.length >= 3);
      expect(await deadLetters("survive-dead-letter")).toEqual([]);

      await unblock();
      await until(async () => (await deadLetters("survive-dead-letter")).length > 0);
      const [letter] = await deadLetters("survive-dead-letter");
      expect(letter).toMatchObject({ event_id: eventId, error: "gave up: the event cannot be applied now" });
      expect(letter!.deliveries).toBeGreaterThanOrEqual(4);
      // Terminated once recorded: no further delivery.
      await until(
        async () => (await nats.jsm.consumers.info(STREAM, "survive-dead-letter")).num_ack_pending === 0,
      );
      const seen = deliveries.length;
      await new Promise((r) => setTimeout(r, 1500));
      expect(deliveries.length).toBe(seen);
    } finally {
      await worker.stop();
      await unblock().catch(() => {}); // (already dropped)
    }
  });
});
