import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query, type SqlPool } from "../db/sql.ts";
import { invalid } from "../errors.ts";
import { newId } from "../ids.ts";
import type { RunningService, ServiceModule } from "../service.ts";
import { EVENT_TEST_CONTEXT, useEventsTestBed } from "../testing/events.ts";
import { startTestService } from "../testing/service.ts";
import { eventConsumer, type ReplayReport } from "./consumer.ts";
import { buildEnvelope, encodeEnvelope } from "./envelope.ts";
import { kitEventMigrations } from "./migrations.ts";
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

/** The encoded envelope of a new event of `type`. */
function message(type: string, id = newId()): Uint8Array {
  const envelope = buildEnvelope(
    ctx,
    { type, entityType: "CATEGORY", entityRef: newId(), entityVersion: 1, entityCreated: new Date() },
    id,
    new Date(),
  );
  return encodeEnvelope(envelope);
}

/** Publishes one event of `type`; returns its id. */
async function publish(type: string): Promise<string> {
  const id = newId();
  await nats.publishAll([{ subject: `${PREFIX}.${type}`, data: message(type, id), msgID: id }]);
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
  query<{ id: string; event_id: string; deliveries: number; error: string }>(db, {
    text: `select id, event_id, deliveries, error from ${SCHEMA}.dead_letter where consumer = $1 order by failed_at`,
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

describe("replaying dead letters: POST /dead-letters/replay on the admin port", () => {
  const HANDLE = "replay-handle";
  const BATCH = "replay-batch";
  /** What the `handle` consumer throws while set. */
  let handleFails: string | undefined;
  /** Whether the `batch` consumer's check rejects every event. */
  let batchRejects = false;
  /** A service whose two consumers give up at the first failure; their effects: rows per event id. */
  const mod: ServiceModule<object> = {
    name: "audit",
    ports: { rpc: 0, admin: 0 },
    schema: SCHEMA,
    entities: [],
    migrations: kitEventMigrations,
    config: {},
    createDeps: () => ({}),
    routes: () => () => {},
    workers: (_deps, base) => {
      const runtime = {
        db: base.db,
        nats: base.nats,
        logger: base.logger,
        metrics: base.metrics,
        schema: SCHEMA,
      };
      return [
        eventConsumer(runtime, {
          name: HANDLE,
          types: ["REPLAY_H"],
          maxDeliver: 1,
          handle: async (tx, event) => {
            if (handleFails) throw new Error(handleFails);
            await query(tx, {
              text: `insert into ${SCHEMA}.handled (event_id) values ($1)`,
              params: [event.id],
            });
          },
        }),
        eventConsumer(runtime, {
          name: BATCH,
          types: ["REPLAY_B"],
          maxDeliver: 1,
          batch: {
            check: (e) => {
              if (batchRejects) throw invalid("NOT_YET", `${e.id} is rejected for now`);
            },
            statement: (events) => ({
              text: `insert into ${SCHEMA}.batched (event_id) select unnest($1::uuid[]) on conflict do nothing`,
              params: [events.map((e) => e.id)],
            }),
          },
        }),
      ];
    },
  };
  let svc: RunningService<object>;
  beforeAll(async () => {
    await query(db, { text: `create table ${SCHEMA}.handled (event_id uuid not null)`, params: [] });
    await query(db, { text: `create table ${SCHEMA}.batched (event_id uuid primary key)`, params: [] });
    svc = await startTestService(mod, {
      DATABASE_URL: bed.databaseUrl,
      EVENTS_STREAM: STREAM,
      EVENTS_SUBJECT_PREFIX: PREFIX,
    });
  });
  afterAll(async () => {
    await svc?.close();
  });
  beforeEach(async () => {
    handleFails = undefined;
    batchRejects = false;
    await query(db, {
      text: `delete from ${SCHEMA}.dead_letter where consumer = any($1)`,
      params: [[HANDLE, BATCH]],
    });
  });

  const replay = async (request: unknown) => {
    const res = await fetch(`${svc.adminUrl}/dead-letters/replay`, {
      method: "POST",
      body: typeof request === "string" ? request : JSON.stringify(request),
    });
    // A report, or (4xx) a list of problems.
    const body = (await res.json()) as ReplayReport & Record<number, { code: string; description: string }>;
    return { status: res.status, body };
  };
  const effects = async (table: "handled" | "batched", eventId: string) =>
    (await query(db, { text: `select 1 from ${SCHEMA}.${table} where event_id = $1`, params: [eventId] }))
      .length;
  /** Publishes an event the consumer dead-letters; returns its id and its dead letter. */
  async function deadLettered(consumer: string, type: string) {
    const eventId = await publish(type);
    let letter: { id: string; event_id: string; deliveries: number; error: string } | undefined;
    await until(async () => {
      letter = (await deadLetters(consumer)).find((d) => d.event_id === eventId);
      return letter !== undefined;
    });
    return { eventId, letter: letter! };
  }
  const replays = async (consumer: string, outcome: string) => {
    const family = await svc.base.metrics.registry.getSingleMetric("fop_consumer_replays_total")?.get();
    return family?.values.find((v) => v.labels.consumer === consumer && v.labels.outcome === outcome)?.value;
  };

  it("handle: applies the event once the handler is fixed, in one transaction with deleting its row; the same id again is not found", async () => {
    handleFails = "the handler is broken";
    const { eventId, letter } = await deadLettered(HANDLE, "REPLAY_H");
    expect(letter.error).toBe("gave up: the handler is broken");
    expect(await applied(HANDLE, eventId)).toBe(false);
    // GET /dead-letters names it by id.
    const listed = (await (await fetch(`${svc.adminUrl}/dead-letters`)).json()) as {
      deadLetters: { id: string; consumer: string; event_id: string }[];
    };
    expect(listed.deadLetters).toContainEqual(
      expect.objectContaining({ id: letter.id, consumer: HANDLE, event_id: eventId }),
    );
    const before = (await replays(HANDLE, "replayed"))!;

    handleFails = undefined;
    expect(await replay({ consumer: HANDLE, ids: [letter.id] })).toEqual({
      status: 200,
      body: { replayed: 1, failed: [], notFound: [], remaining: 0 },
    });
    expect(await effects("handled", eventId)).toBe(1);
    expect(await applied(HANDLE, eventId)).toBe(true);
    expect(await deadLetters(HANDLE)).toEqual([]);
    expect(await replays(HANDLE, "replayed")).toBe(before + 1);

    expect((await replay({ consumer: HANDLE, ids: [letter.id] })).body).toEqual({
      replayed: 0,
      failed: [],
      notFound: [letter.id],
      remaining: 0,
    });
    expect(await effects("handled", eventId)).toBe(1);
  });

  it("handle: the effect and the row's deletion commit together (a delete that fails leaves no effect)", async () => {
    handleFails = "broken";
    const { eventId, letter } = await deadLettered(HANDLE, "REPLAY_H");
    handleFails = undefined;
    await query(db, {
      text: `create function ${SCHEMA}.keep() returns trigger language plpgsql as $$ begin raise exception 'kept'; end $$;
             create trigger keep before delete on ${SCHEMA}.dead_letter for each row execute function ${SCHEMA}.keep()`,
      params: [],
    });
    try {
      expect((await replay({ consumer: HANDLE })).body.failed).toEqual([
        { id: letter.id, eventId, error: "replay failed: kept" },
      ]);
    } finally {
      await query(db, { text: `drop function ${SCHEMA}.keep() cascade`, params: [] });
    }
    expect(await effects("handled", eventId)).toBe(0);
    expect(await applied(HANDLE, eventId)).toBe(false);
    expect((await replay({ consumer: HANDLE })).body).toMatchObject({ replayed: 1, failed: [] });
    expect(await effects("handled", eventId)).toBe(1);
  });

  it("handle: an event applied before (its inbox row there) is not applied again; its row is still deleted", async () => {
    const eventId = await publish("REPLAY_H");
    await until(() => applied(HANDLE, eventId));
    // A dead letter of the very event (say, written by a replica that gave up on a redelivery).
    await query(db, {
      text: `insert into ${SCHEMA}.dead_letter (id, consumer, event_id, subject, payload, error, deliveries) values ($1, $2, $3, $4, $5, 'gave up: x', 10)`,
      params: [newId(), HANDLE, eventId, `${PREFIX}.REPLAY_H`, Buffer.from(message("REPLAY_H", eventId))],
    });
    expect((await replay({ consumer: HANDLE })).body).toEqual({
      replayed: 1,
      failed: [],
      notFound: [],
      remaining: 0,
    });
    expect(await effects("handled", eventId)).toBe(1);
    expect(await deadLetters(HANDLE)).toEqual([]);
  });

  it("a replay that fails again keeps the row, with the new error and one more delivery; an undecodable one stays too", async () => {
    handleFails = "the handler is broken";
    const { eventId, letter } = await deadLettered(HANDLE, "REPLAY_H");
    const garbage = newId();
    await query(db, {
      text: `insert into ${SCHEMA}.dead_letter (id, consumer, subject, payload, error, deliveries) values ($1, $2, 's', '\\x00ff', 'undecodable: x', 1)`,
      params: [garbage, HANDLE],
    });
    const failedBefore = (await replays(HANDLE, "failed"))!;

    handleFails = "still broken";
    const { status, body } = await replay({ consumer: HANDLE });
    expect(status).toBe(200);
    expect(body).toMatchObject({ replayed: 0, notFound: [], remaining: 0 });
    expect(body.failed).toEqual([
      { id: letter.id, eventId, error: "replay failed: still broken" },
      { id: garbage, eventId: null, error: expect.stringMatching(/^replay failed: undecodable: /) },
    ]);
    const rows = await deadLetters(HANDLE);
    expect(rows.find((r) => r.id === letter.id)).toMatchObject({
      error: "replay failed: still broken",
      deliveries: letter.deliveries + 1,
    });
    expect(rows.find((r) => r.id === garbage)?.error).toMatch(/^replay failed: undecodable: /);
    expect(await effects("handled", eventId)).toBe(0);
    expect(await applied(HANDLE, eventId)).toBe(false);
    expect(await replays(HANDLE, "failed")).toBe(failedBefore + 2);

    // Fixed: the event goes; the undecodable one cannot, and stays.
    handleFails = undefined;
    expect((await replay({ consumer: HANDLE })).body).toMatchObject({ replayed: 1, remaining: 0 });
    expect(await effects("handled", eventId)).toBe(1);
    expect((await deadLetters(HANDLE)).map((r) => r.id)).toEqual([garbage]);
  });

  it("batch: the check and the statement for that event, then the row is deleted; replayed again, nothing changes", async () => {
    batchRejects = true;
    const { eventId, letter } = await deadLettered(BATCH, "REPLAY_B");
    expect(letter.error).toMatch(/^rejected: .* is rejected for now$/);

    // Still rejected: kept, with the new error.
    const again = await replay({ consumer: BATCH, ids: [letter.id] });
    expect(again.body.failed).toEqual([
      { id: letter.id, eventId, error: `replay failed: ${eventId} is rejected for now` },
    ]);
    expect((await deadLetters(BATCH))[0]).toMatchObject({ id: letter.id, deliveries: letter.deliveries + 1 });

    batchRejects = false;
    expect((await replay({ consumer: BATCH, ids: [letter.id] })).body).toEqual({
      replayed: 1,
      failed: [],
      notFound: [],
      remaining: 0,
    });
    expect(await effects("batched", eventId)).toBe(1);
    expect(await deadLetters(BATCH)).toEqual([]);

    // The row back (a crash between the statement and the delete): the statement skips the event.
    await query(db, {
      text: `insert into ${SCHEMA}.dead_letter (id, consumer, event_id, subject, payload, error, deliveries) values ($1, $2, $3, 's', $4, 'x', 1)`,
      params: [letter.id, BATCH, eventId, Buffer.from(message("REPLAY_B", eventId))],
    });
    expect((await replay({ consumer: BATCH })).body).toMatchObject({ replayed: 1, failed: [] });
    expect(await effects("batched", eventId)).toBe(1);
    expect(await deadLetters(BATCH)).toEqual([]);
  });

  it("without ids: the oldest 1000 per call, and how many remain; a type the consumer does not take is nothing to apply", async () => {
    await query(db, {
      text: `insert into ${SCHEMA}.dead_letter (id, consumer, event_id, subject, payload, error, deliveries, failed_at)
             select gen_random_uuid(), $1, null, 's', $2, 'x', 1, now() - make_interval(secs => 2000 - n) from generate_series(1, 1001) n`,
      params: [HANDLE, Buffer.from(message("NOT_REPLAY_H"))],
    });
    const newest = (await deadLetters(HANDLE)).at(-1)!.id;
    expect((await replay({ consumer: HANDLE })).body).toEqual({
      replayed: 1000,
      failed: [],
      notFound: [],
      remaining: 1,
    });
    expect((await deadLetters(HANDLE)).map((r) => r.id)).toEqual([newest]);
    expect((await replay({ consumer: HANDLE })).body).toEqual({
      replayed: 1,
      failed: [],
      notFound: [],
      remaining: 0,
    });
  });

  it("ids that are not this consumer's dead letters are reported; the others are replayed", async () => {
    handleFails = "broken";
    const { eventId, letter } = await deadLettered(HANDLE, "REPLAY_H");
    batchRejects = true;
    const other = await deadLettered(BATCH, "REPLAY_B");
    handleFails = undefined;
    const unknown = newId();
    const { status, body } = await replay({
      consumer: HANDLE,
      ids: [unknown, letter.id, other.letter.id, "not-an-id"],
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      replayed: 1,
      failed: [],
      notFound: [unknown, other.letter.id, "not-an-id"],
      remaining: 0,
    });
    expect(await effects("handled", eventId)).toBe(1);
    expect((await deadLetters(BATCH)).map((r) => r.id)).toEqual([other.letter.id]);
  });

  it("refuses an unknown consumer (404, naming the service's), a malformed body (400) and a caller not on this host (403)", async () => {
    const unknown = await replay({ consumer: "nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.body[0]).toMatchObject({ code: "UNKNOWN_CONSUMER" });
    expect(unknown.body[0].description).toContain(`"nope"`);
    expect(unknown.body[0].description).toContain(`${HANDLE}, ${BATCH}`);
    for (const body of [
      "{",
      "[]",
      { ids: [] },
      { consumer: HANDLE, ids: [] },
      { consumer: HANDLE, id: "x" },
    ]) {
      const res = await replay(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body[0].code).toBe("INVALID_REQUEST");
    }

    handleFails = "broken";
    const { letter } = await deadLettered(HANDLE, "REPLAY_H");
    handleFails = undefined;
    const refused = await svc.admin.inject({
      method: "POST",
      url: "/dead-letters/replay",
      remoteAddress: "10.1.2.3",
      payload: { consumer: HANDLE },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()[0].code).toBe("ADMIN_ONLY");
    expect((await deadLetters(HANDLE)).map((r) => r.id)).toEqual([letter.id]);
  });
});

describe("the inbox's retention", () => {
  it("rows older than INBOX_RETENTION are deleted at start and then periodically while the consumer runs; newer ones stay", async () => {
    const name = "inbox-retention";
    const row = (age: string) =>
      query(db, {
        text: `insert into ${SCHEMA}.inbox (consumer, event_id, processed_at) values ($1, $2, clock_timestamp() - $3::interval) returning event_id`,
        params: [name, newId(), age],
      }).then((r) => (r[0] as { event_id: string }).event_id);
    const present = async (id: string) => applied(name, id);
    const before = await row("1 hour");
    const recent = await row("-1 hour"); // within any retention for the whole test
    // 1 s retention: pruned every 0.5 s.
    const worker = eventConsumer(
      {
        db,
        nats: { ...nats, events: { ...nats.events, inboxRetentionMs: 1000 } },
        logger: silent,
        schema: SCHEMA,
      },
      { name, types: ["NOTHING_PUBLISHED"], handle: async () => {} },
    );
    await worker.start();
    try {
      expect(await present(before)).toBe(false);
      const during = await row("10 seconds");
      await until(async () => !(await present(during)), 5_000);
      expect(await present(recent)).toBe(true);
    } finally {
      await worker.stop();
    }
    // Stopped: nothing more is deleted.
    const after = await row("10 seconds");
    await new Promise((r) => setTimeout(r, 1200));
    expect(await present(after)).toBe(true);
  });
});

describe("a batch gathers the events of its first gatherMs (CONSUMER_GATHER_MS)", () => {
  /** A batch consumer of `type` whose statements record the events each applied. */
  function batchConsumer(name: string, type: string, consumerGatherMs: number) {
    const batches: string[][] = [];
    const worker = eventConsumer(
      { db, nats, logger: silent, schema: SCHEMA, consumerGatherMs },
      {
        name,
        types: [type],
        batch: {
          statement: (events) => {
            batches.push(events.map((e) => e.id));
            return { text: "select 1", params: [] };
          },
        },
      },
    );
    return { worker, batches };
  }
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("events published 60 ms apart: one statement within a 1 s window; one each without (0)", async () => {
    for (const gatherMs of [1_000, 0]) {
      const type = `GATHER_${gatherMs}`;
      const { worker, batches } = batchConsumer(`gather-${gatherMs}`, type, gatherMs);
      await worker.start();
      try {
        const ids = [await publish(type)];
        // Without a window, the first is applied before the next is sent (the durable's first pull
        // may be under way yet: events sent before it would arrive together).
        if (gatherMs === 0) await until(() => batches.length === 1);
        for (let i = 0; i < 2; i++) {
          await pause(60);
          ids.push(await publish(type));
        }
        await until(() => batches.flat().length === 3);
        expect(batches.flat().sort()).toEqual([...ids].sort());
        expect(batches).toHaveLength(gatherMs > 0 ? 1 : 3);
      } finally {
        await worker.stop();
      }
    }
  });
});
