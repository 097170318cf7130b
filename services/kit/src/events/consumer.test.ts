import { beforeAll, describe, expect, it } from "vitest";
import { query, type SqlPool } from "../db/sql.ts";
import { newId } from "../ids.ts";
import { EVENT_TEST_CONTEXT, useEventsTestBed } from "../testing/events.ts";
import { eventConsumer } from "./consumer.ts";
import { buildEnvelope, encodeEnvelope } from "./envelope.ts";
import type { Nats } from "./nats.ts";

const bed = useEventsTestBed("consumer");
const { schema: SCHEMA, prefix: PREFIX, stream: STREAM, silent } = bed;
const ctx = EVENT_TEST_CONTEXT;
let db: SqlPool;
let nats: Nats;
beforeAll(() => {
  ({ db, nats } = bed);
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
