/**
 * The subject hierarchy on a real JetStream: a consumer of one entity type is delivered nothing
 * else, decides from the tenant header before decoding, applies the events that arrive together in
 * one transaction, and moves from a pre-hierarchy durable (`<prefix>.>`) to its narrow filter while
 * events of both subject forms keep coming, losing none and applying none twice.
 */
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../db/sql.ts";
import { createSqlPool, query, type SqlPool } from "../db/sql.ts";
import { inTransaction } from "../db/tx.ts";
import { invalid } from "../errors.ts";
import { newId } from "../ids.ts";
import { EVENT_TEST_CONTEXT, useEventsTestBed } from "../testing/events.ts";
import {
  type ConsumerOptions,
  type EventConsumer,
  eventConsumer,
  type Lane,
  type LanedConsumer,
} from "./consumer.ts";
import { buildEnvelope, encodeEnvelope } from "./envelope.ts";
import {
  connectNats,
  entityFilter,
  legacyFilter,
  type Nats,
  type StreamMessage,
  subjectFor,
  TENANT_HEADER,
} from "./nats.ts";

const bed = useEventsTestBed("subjects");
const { schema: SCHEMA, prefix: PREFIX, stream: STREAM, silent } = bed;
let db: SqlPool;
let nats: Nats;
beforeAll(async () => {
  ({ db, nats } = bed);
  await query(db, {
    text: `create table ${SCHEMA}.applied (consumer text, event_id uuid, tx int)`,
    params: [],
  });
});

async function until(check: () => Promise<boolean> | boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ENTITY: Record<string, string> = { PICK: "PICK_JOB", CATEGORY: "CATEGORY" };
const entityOf = (type: string) => ENTITY[type.split("_")[0]!]!;

/** A message of a new event of `type` (`legacy`: on the pre-hierarchy subject, without tenant header). */
function event(type: string, opts: { legacy?: boolean; tenant?: string; data?: Uint8Array } = {}) {
  const id = newId();
  const entityType = entityOf(type);
  const envelope = buildEnvelope(
    { ...EVENT_TEST_CONTEXT, tenant: opts.tenant ?? EVENT_TEST_CONTEXT.tenant },
    { type, entityType, entityRef: newId(), entityVersion: 1, entityCreated: new Date() },
    id,
    new Date(),
  );
  const message: StreamMessage = {
    subject: opts.legacy ? `${PREFIX}.${type}` : subjectFor(PREFIX, entityType, type),
    data: opts.data ?? encodeEnvelope(envelope),
    msgID: id,
    headers: opts.legacy ? {} : { [TENANT_HEADER]: opts.tenant ?? EVENT_TEST_CONTEXT.tenant },
  };
  return { id, message };
}

/** Application count per event id of `consumer`. */
async function appliedBy(consumer: string): Promise<Map<string, number>> {
  const rows = await query<{ event_id: string; n: number }>(db, {
    text: `select event_id, count(*)::int as n from ${SCHEMA}.applied where consumer = $1 group by event_id`,
    params: [consumer],
  });
  return new Map(rows.map((r) => [r.event_id, r.n]));
}

const deadLetters = (consumer: string) =>
  query<{ event_id: string | null; error: string }>(db, {
    text: `select event_id, error from ${SCHEMA}.dead_letter where consumer = $1`,
    params: [consumer],
  });

/** Transactions seen by handlers (a number per transaction object). */
const txIds = new WeakMap<Db, number>();
let nextTx = 0;
const txOf = (tx: Db) => {
  if (!txIds.has(tx)) txIds.set(tx, ++nextTx);
  return txIds.get(tx)!;
};

type RecorderOptions = {
  entityType?: string;
  accepts?: (tenant: string, type: string) => boolean;
  types?: (type: string) => boolean;
  poison?: Set<string>;
};

/** A consumer that records each event it applies in `applied`. */
function recorderOptions(name: string, opts: RecorderOptions = {}): ConsumerOptions {
  return {
    name,
    entityType: opts.entityType,
    types: opts.types,
    accepts: opts.accepts,
    maxDeliver: 2,
    handle: async (tx, e) => {
      if (opts.poison?.has(e.id)) throw invalid("POISON", `${e.id} cannot be applied`);
      await query(tx, {
        text: `insert into ${SCHEMA}.applied (consumer, event_id, tx) values ($1, $2, $3)`,
        params: [name, e.id, txOf(tx)],
      });
    },
  };
}

const recorder = (name: string, opts: RecorderOptions = {}): EventConsumer =>
  eventConsumer({ db, nats, logger: silent, schema: SCHEMA }, recorderOptions(name, opts));

const running: EventConsumer[] = [];
afterAll(async () => {
  for (const c of running) await c.stop();
});
async function start<C extends EventConsumer>(c: C): Promise<C> {
  running.push(c);
  await c.start();
  return c;
}

describe("a consumer of one entity type", () => {
  it("is delivered only that entity's events: JetStream filters on <prefix>.<ENTITY>.>", async () => {
    const picks = Array.from({ length: 5 }, () => event("PICK_JOB_CREATED"));
    const categories = Array.from({ length: 5 }, () => event("CATEGORY_CREATED"));
    await nats.publishAll([...categories, ...picks].map((e) => e.message));
    // No type test: whatever JetStream delivered would be applied.
    await start(recorder("entity-only", { entityType: "PICK_JOB" }));
    await until(async () => (await appliedBy("entity-only")).size >= 5);
    const info = await nats.jsm.consumers.info(STREAM, "entity-only");
    expect(info.config.filter_subject).toBe(`${PREFIX}.PICK_JOB.>`);
    await until(async () => (await nats.jsm.consumers.info(STREAM, "entity-only")).num_ack_pending === 0);
    const applied = await appliedBy("entity-only");
    for (const p of picks) expect(applied.get(p.id)).toBe(1);
    for (const c of categories) expect(applied.has(c.id)).toBe(false);
  });
});

describe("accepts: a decision before the envelope is decoded", () => {
  it("acknowledges what it refuses without decoding it; decodes what it accepts", async () => {
    const garbage = new TextEncoder().encode("not an envelope \u0000\u0001");
    const refused = event("CATEGORY_ACC_CREATED", { tenant: "nobody", data: garbage });
    const accepted = event("CATEGORY_ACC_CREATED", { tenant: "t1", data: garbage });
    const good = event("CATEGORY_ACC_UPDATED", { tenant: "t1" });
    // Without the header (a legacy message) the envelope is decoded first, then asked.
    const legacyRefused = event("CATEGORY_ACC_DELETED", { tenant: "nobody", legacy: true });
    const legacyAccepted = event("CATEGORY_ACC_DELETED", { tenant: "t1", legacy: true });
    const asked: string[] = [];
    await nats.publishAll([refused, accepted, good, legacyRefused, legacyAccepted].map((e) => e.message));
    await start(
      recorder("accepts", {
        types: (t) => t.startsWith("CATEGORY_ACC_"),
        accepts: (tenant, type) => {
          asked.push(`${tenant}/${type}`);
          return tenant === "t1";
        },
      }),
    );
    await until(
      async () => (await appliedBy("accepts")).size >= 2 && (await deadLetters("accepts")).length >= 1,
    );
    await until(async () => (await nats.jsm.consumers.info(STREAM, "accepts")).num_ack_pending === 0);
    expect([...(await appliedBy("accepts")).keys()].sort()).toEqual([good.id, legacyAccepted.id].sort());
    // The refused garbage was never decoded (else it would be a dead letter too).
    const dead = await deadLetters("accepts");
    expect(dead).toHaveLength(1);
    expect(dead[0]!.error).toMatch(/^undecodable/);
    expect(asked).toContain("nobody/CATEGORY_ACC_CREATED");
    expect(asked).toContain("nobody/CATEGORY_ACC_DELETED");
  });
});

describe("handle mode: the events that arrive together share one transaction", () => {
  it("applies 40 events in fewer transactions than events, each once", async () => {
    const events = Array.from({ length: 40 }, () => event("CATEGORY_TOGETHER"));
    await nats.publishAll(events.map((e) => e.message));
    await start(recorder("together", { types: (t) => t === "CATEGORY_TOGETHER" }));
    await until(async () => (await appliedBy("together")).size >= 40);
    const rows = await query<{ txs: number; n: number }>(db, {
      text: `select count(distinct tx)::int as txs, count(*)::int as n from ${SCHEMA}.applied where consumer = 'together'`,
      params: [],
    });
    expect(rows[0]!.n).toBe(40);
    expect(rows[0]!.txs).toBeLessThan(40);
  });

  it("a poison event in a transaction fails alone: the others are applied, it is dead-lettered", async () => {
    const events = Array.from({ length: 10 }, () => event("CATEGORY_POISON"));
    const poison = new Set([events[4]!.id]);
    await nats.publishAll(events.map((e) => e.message));
    await start(recorder("poisoned", { poison, types: (t) => t === "CATEGORY_POISON" }));
    await until(
      async () => (await appliedBy("poisoned")).size >= 9 && (await deadLetters("poisoned")).length >= 1,
    );
    const applied = await appliedBy("poisoned");
    expect([...applied.keys()].sort()).toEqual(
      events
        .filter((e) => !poison.has(e.id))
        .map((e) => e.id)
        .sort(),
    );
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    expect((await deadLetters("poisoned")).map((d) => d.event_id)).toEqual([events[4]!.id]);
  });
});

/**
 * A consumer replacing the durable the kit made before the subject hierarchy (`<prefix>.>`, every
 * event, explicit acks) while writers keep publishing: 40 events of `<tag>` kinds first (a quarter
 * CATEGORY_, the rest PICK_JOB_; `legacyBefore` says which are on legacy subjects), of which the old
 * consumer applied (inbox row + effect, for the picks) and acknowledged the first 10 and holds 5
 * more, unacknowledged; then writers of both subject forms (a rolling deploy: old relays publish
 * legacy subjects) while the consumer starts, is restarted mid-stream, and runs on. Resolves to
 * the ids of every PICK_JOB_ event written, and what was written meanwhile.
 */
async function migrateWhileWriting(
  name: string,
  tag: string,
  legacyBefore: (i: number) => boolean,
  consumer: () => EventConsumer,
) {
  await nats.jsm.consumers.add(STREAM, {
    durable_name: name,
    ack_policy: AckPolicy.Explicit,
    // (New: the other tests' events came before.)
    deliver_policy: DeliverPolicy.New,
    filter_subject: entityFilter(PREFIX),
    ack_wait: nanos(30_000),
    max_deliver: -1,
  });
  const isPick = (e: { message: StreamMessage }) => e.message.subject.includes(`PICK_JOB_${tag}_`);
  const before = Array.from({ length: 40 }, (_, i) =>
    event(i % 4 === 0 ? `CATEGORY_${tag}_CREATED` : `PICK_JOB_${tag}_CREATED`, { legacy: legacyBefore(i) }),
  );
  await nats.publishAll(before.map((e) => e.message));
  const oldConsumer = await nats.js.consumers.get(STREAM, name);
  let acked = 0;
  for await (const m of await oldConsumer.fetch({ max_messages: 15, expires: 5_000 })) {
    if (acked === 10) continue;
    const id = m.headers?.get("Nats-Msg-Id") ?? "";
    if (isPick(before.find((e) => e.id === id)!)) {
      await query(db, {
        text: `insert into ${SCHEMA}.inbox (consumer, event_id) values ($1, $2)`,
        params: [name, id],
      });
      await query(db, {
        text: `insert into ${SCHEMA}.applied (consumer, event_id, tx) values ($1, $2, 0)`,
        params: [name, id],
      });
    }
    // Confirmed by the server: a plain ack may still be in flight when the count below is read.
    await m.ackAck();
    acked++;
  }
  expect((await nats.jsm.consumers.info(STREAM, name)).num_ack_pending).toBe(5);

  const during: { id: string; message: StreamMessage }[] = [];
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const type = i % 3 === 0 ? `CATEGORY_${tag}_UPDATED` : `PICK_JOB_${tag}_UPDATED`;
      const e = event(type, { legacy: i % 2 === 0 });
      during.push(e);
      await nats.publishAll([e.message]);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  await new Promise((r) => setTimeout(r, 200));
  const c = await start(consumer());
  await new Promise((r) => setTimeout(r, 800));
  // Restarted mid-stream: the migration is not repeated, the legacy durable is read again.
  await c.stop();
  await c.start();
  await new Promise((r) => setTimeout(r, 500));
  writing = false;
  await writer;
  expect(
    during.filter((e) => e.message.subject === `${PREFIX}.PICK_JOB_${tag}_UPDATED`).length,
  ).toBeGreaterThan(5);
  expect(during.filter((e) => e.message.subject.includes(".PICK_JOB.")).length).toBeGreaterThan(5);
  return { picks: [...before, ...during].filter(isPick).map((e) => e.id) };
}

describe("migrating a pre-hierarchy durable (filter <prefix>.>) while events keep coming", () => {
  it("loses no event of either subject form and applies none twice", async () => {
    const NAME = "migrating";
    const { picks } = await migrateWhileWriting(
      NAME,
      "MIG",
      () => true,
      () => recorder(NAME, { entityType: "PICK_JOB", types: (t) => t.startsWith("PICK_JOB_MIG_") }),
    );
    await until(async () => (await appliedBy(NAME)).size >= picks.length);
    await until(async () => {
      const [a, b] = await Promise.all([
        nats.jsm.consumers.info(STREAM, NAME),
        nats.jsm.consumers.info(STREAM, `${NAME}-legacy`),
      ]);
      return a.num_pending + a.num_ack_pending + b.num_pending + b.num_ack_pending === 0;
    });
    const applied = await appliedBy(NAME);
    expect([...applied.keys()].sort()).toEqual(picks.sort());
    expect([...applied.entries()].filter(([, n]) => n !== 1)).toEqual([]);

    const info = await nats.jsm.consumers.info(STREAM, NAME);
    expect(info.config.filter_subject).toBe(`${PREFIX}.PICK_JOB.>`);
    const legacy = await nats.jsm.consumers.info(STREAM, `${NAME}-legacy`);
    expect(legacy.config.filter_subject).toBe(legacyFilter(PREFIX));
    expect(await deadLetters(NAME)).toEqual([]);
  });
});

describe("lanes: a consumer whose filters follow what its service wants", () => {
  /** What each consumer wants, as a service's subscriptions would say it. */
  const WANTS = `${SCHEMA}.wants`;
  beforeAll(async () => {
    await query(db, { text: `create table ${WANTS} (consumer text, entity text, type text)`, params: [] });
  });
  const want = (tx: Db, consumer: string, lane: Lane) =>
    query(tx, {
      text: `insert into ${WANTS} (consumer, entity, type) values ($1, $2, $3)`,
      params: [consumer, "entityType" in lane ? lane.entityType : null, "type" in lane ? lane.type : null],
    });
  const wanted = (consumer: string) => async (tx: Db) =>
    (
      await query<{ entity: string | null; type: string | null }>(tx, {
        text: `select entity, type from ${WANTS} where consumer = $1`,
        params: [consumer],
      })
    ).map((r): Lane => (r.entity ? { entityType: r.entity } : { type: r.type! }));
  const laned = (name: string, opts: RecorderOptions = {}): LanedConsumer =>
    eventConsumer(
      { db, nats, logger: silent, schema: SCHEMA },
      { ...recorderOptions(name, opts), lanes: { wanted: wanted(name) } },
    );
  /** The durables of `name`'s lanes (and its own, if any), sorted. */
  const durablesOf = async (name: string) => {
    const names: string[] = [];
    for await (const c of nats.jsm.consumers.list(STREAM)) {
      if (c.name === name || c.name.startsWith(`${name}-`)) names.push(c.name);
    }
    return names.sort();
  };
  const settled = (name: string) =>
    until(async () => {
      for await (const c of nats.jsm.consumers.list(STREAM)) {
        if (c.name.startsWith(`${name}-`) && c.num_pending + c.num_ack_pending > 0) return false;
      }
      return true;
    });

  it("is delivered only its lanes' events; a lane a write covers gets every event committed after it; a lane no longer wanted is deleted", async () => {
    const NAME = "laned";
    await want(db, NAME, { entityType: "PICK_JOB" });
    const c = await start(laned(NAME));
    await until(async () => (await durablesOf(NAME)).length > 0);
    expect(await durablesOf(NAME)).toEqual([`${NAME}-PICK_JOB`]);
    const picks = Array.from({ length: 5 }, () => event("PICK_JOB_LANE_CREATED"));
    const categories = Array.from({ length: 5 }, () => event("CATEGORY_LANE_CREATED"));
    await nats.publishAll([...categories, ...picks].map((e) => e.message));
    await until(async () => (await appliedBy(NAME)).size >= 5);
    await settled(NAME);
    expect([...(await appliedBy(NAME)).keys()].sort()).toEqual(picks.map((e) => e.id).sort());

    // A write makes one event type of another entity wanted; its events come right after it commits,
    // before this consumer has heard of the change: they wait in the lane's durable.
    await inTransaction(db, async (tx) => {
      await c.cover(tx, [{ type: "CATEGORY_LANE_UPDATED" }]);
      await want(tx, NAME, { type: "CATEGORY_LANE_UPDATED" });
    });
    const updated = Array.from({ length: 5 }, () => event("CATEGORY_LANE_UPDATED"));
    const other = event("CATEGORY_LANE_DELETED");
    await nats.publishAll([...updated, other].map((e) => e.message));
    expect(await durablesOf(NAME)).toEqual([`${NAME}-CATEGORY_LANE_UPDATED`, `${NAME}-PICK_JOB`]);
    c.refresh();
    await until(async () => (await appliedBy(NAME)).size >= 10);
    await settled(NAME);
    const applied = await appliedBy(NAME);
    expect([...applied.keys()].sort()).toEqual([...picks, ...updated].map((e) => e.id).sort());
    expect([...applied.values()].every((n) => n === 1)).toBe(true);

    // Nobody wants PICK_JOB any more: its durable goes, and its events are not delivered.
    await query(db, {
      text: `delete from ${WANTS} where consumer = $1 and entity = 'PICK_JOB'`,
      params: [NAME],
    });
    c.refresh();
    await until(async () => !(await durablesOf(NAME)).includes(`${NAME}-PICK_JOB`));
    const late = event("PICK_JOB_LANE_CREATED");
    const stillWanted = event("CATEGORY_LANE_UPDATED");
    await nats.publishAll([late, stillWanted].map((e) => e.message));
    await until(async () => (await appliedBy(NAME)).has(stillWanted.id));
    await settled(NAME);
    expect((await appliedBy(NAME)).has(late.id)).toBe(false);
    expect(await durablesOf(NAME)).toEqual([`${NAME}-CATEGORY_LANE_UPDATED`]);

    // A new version with other limits (EVENTS_ACK_WAIT_MS) brings the lanes there at its start.
    await c.stop();
    const slower = eventConsumer(
      { db, nats: { ...nats, events: { ...nats.events, ackWaitMs: 7_000 } }, logger: silent, schema: SCHEMA },
      { ...recorderOptions(NAME), lanes: { wanted: wanted(NAME) } },
    );
    await start(slower);
    await until(
      async () =>
        (await nats.jsm.consumers.info(STREAM, `${NAME}-CATEGORY_LANE_UPDATED`)).config.ack_wait ===
        nanos(7_000),
    );
  });

  it("a reconcile waits for a write that covers a lane until it commits, and keeps the lane's durable", async () => {
    const NAME = "racing";
    const c = await start(laned(NAME));
    expect(await durablesOf(NAME)).toEqual([]);
    const watcher = createSqlPool(bed.databaseUrl, { max: 1 });
    try {
      const waitingForLock = async () =>
        (
          await query<{ n: number }>(watcher, {
            text: "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted",
            params: [],
          })
        )[0]!.n > 0;
      await inTransaction(db, async (tx) => {
        await c.cover(tx, [{ entityType: "PICK_JOB" }]);
        // The reconcile starts now, while the write that relies on the lane has not committed: it
        // must not read what is wanted (and delete the durable) before the write commits.
        c.refresh();
        await until(waitingForLock, 10_000);
        await want(tx, NAME, { entityType: "PICK_JOB" });
      });
    } finally {
      await watcher.end();
    }
    const after = event("PICK_JOB_RACE_CREATED");
    await nats.publishAll([after.message]);
    await until(async () => (await appliedBy(NAME)).has(after.id));
    expect(await durablesOf(NAME)).toEqual([`${NAME}-PICK_JOB`]);
  });

  it("a write whose lanes cannot be covered (NATS gone) fails as unavailable and commits nothing", async () => {
    const NAME = "uncovered";
    const gone = await connectNats(inject("natsUrl"), "gone-test", nats.events, silent);
    await gone.close();
    const c = eventConsumer(
      { db, nats: gone, logger: silent, schema: SCHEMA },
      { ...recorderOptions(NAME), lanes: { wanted: wanted(NAME) } },
    );
    const write = inTransaction(db, async (tx) => {
      await want(tx, NAME, { entityType: "PICK_JOB" });
      await c.cover(tx, [{ entityType: "PICK_JOB" }]);
    });
    await expect(write).rejects.toMatchObject({ kind: "unavailable", code: "EVENT_STREAM_UNAVAILABLE" });
    expect(await wanted(NAME)(db)).toEqual([]);
    expect(await durablesOf(NAME)).toEqual([]);
  });

  it("migrates the one durable of before (filter <prefix>.>) while events keep coming: none lost, none applied twice", async () => {
    const NAME = "migrating-lanes";
    await want(db, NAME, { entityType: "PICK_JOB" });
    // Legacy subjects carry no entity: the legacy lane delivers them all, the type test keeps the picks.
    const { picks } = await migrateWhileWriting(
      NAME,
      "MIG2",
      (i) => i % 2 === 0,
      () => laned(NAME, { types: (t) => t.startsWith("PICK_JOB_MIG2_") }),
    );
    await until(async () => (await appliedBy(NAME)).size >= picks.length);
    await settled(NAME);
    const applied = await appliedBy(NAME);
    expect([...applied.keys()].sort()).toEqual(picks.sort());
    expect([...applied.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(await durablesOf(NAME)).toEqual([`${NAME}-PICK_JOB`, `${NAME}-legacy`]);
    expect((await nats.jsm.consumers.info(STREAM, `${NAME}-PICK_JOB`)).config.filter_subject).toBe(
      `${PREFIX}.PICK_JOB.>`,
    );
    expect(await deadLetters(NAME)).toEqual([]);
  });
});
