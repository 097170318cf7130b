/** The audit service against real Postgres and JetStream: idempotency, poison messages, retention. */
import { randomBytes } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { query, type SqlPool } from "@fop/kit/db/sql";
import { listDeadLetters } from "@fop/kit/events/consumer";
import { newId } from "@fop/kit/ids";
import type { RunningService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { startTestService } from "@fop/kit/testing/service";
import { EventEnvelopeSchema } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { auditService } from "../src/service.ts";
import { sweepRetention, toAudit } from "../src/usecases/audits.ts";
import type { AuditDeps } from "../src/usecases/deps.ts";

const suffix = randomBytes(4).toString("hex");
const STREAM = `AUDIT_T_${suffix.toUpperCase()}`;
const PREFIX = `a${suffix}.events`;
let db: TestDatabase;
let svc: RunningService<AuditDeps>;
let nc: NatsConnection;

beforeAll(async () => {
  db = await createTestDatabase(inject("adminUrl"), [auditService]);
  svc = await startTestService(auditService, {
    DATABASE_URL: db.serviceUrl("audit"),
    EVENTS_STREAM: STREAM,
    EVENTS_SUBJECT_PREFIX: PREFIX,
    EVENTS_ACK_WAIT_MS: "2000",
    AUDIT_SWEEP_INTERVAL_MS: "3600000",
  });
  nc = await connect({ servers: inject("natsUrl") });
  await svc.base.nats.ensureStream();
});
afterAll(async () => {
  await svc?.close();
  await (await jetstreamManager(nc)).streams.delete(STREAM).catch(() => {});
  await nc?.close();
  await db?.drop();
});

const envelope = (over: { tenant?: string } = {}) =>
  create(EventEnvelopeSchema, {
    id: newId(),
    type: "CATEGORY_CREATED",
    tenant: "acme",
    entityType: "CATEGORY",
    entityRef: newId(),
    entityVersion: 1n,
    entityCreated: timestampFromDate(new Date()),
    occurredAt: timestampFromDate(new Date()),
    actor: { id: "u1", username: "ada" },
    client: { api: "REST", rawInfo: "test" },
    traceId: "t1",
    ...over,
  });

const records = (entityRef: string) =>
  query<Parameters<typeof toAudit>[0]>(svc.deps.db, {
    text: "select * from audit.audit_record where tenant_id = 'acme' and entity_ref = $1",
    params: [entityRef],
  }).then((rows) => rows.map(toAudit));

async function waitFor<T>(fn: () => Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("audit-records consumer", () => {
  it("writes one record per event id, even when the event is delivered twice", async () => {
    const js = jetstream(nc);
    const e = envelope();
    const bytes = toBinary(EventEnvelopeSchema, e);
    // Two different message ids: JetStream keeps both; the inbox must make the second a no-op.
    await js.publish(`${PREFIX}.CATEGORY_CREATED`, bytes, { msgID: `${e.id}-a` });
    await js.publish(`${PREFIX}.CATEGORY_CREATED`, bytes, { msgID: `${e.id}-b` });
    const marker = envelope();
    await js.publish(`${PREFIX}.CATEGORY_CREATED`, toBinary(EventEnvelopeSchema, marker), {
      msgID: marker.id,
    });
    await waitFor(async () => (await records(marker.entityRef)).length === 1);
    expect(await records(e.entityRef)).toHaveLength(1);
  });

  it("dead-letters poison messages and keeps going", async () => {
    const js = jetstream(nc);
    await js.publish(`${PREFIX}.GARBAGE`, new TextEncoder().encode("not a protobuf envelope \u0000\u0001"), {
      msgID: newId(),
    });
    const noTenant = envelope({ tenant: "" });
    await js.publish(`${PREFIX}.CATEGORY_CREATED`, toBinary(EventEnvelopeSchema, noTenant), {
      msgID: noTenant.id,
    });
    const after = envelope();
    await js.publish(`${PREFIX}.CATEGORY_CREATED`, toBinary(EventEnvelopeSchema, after), { msgID: after.id });
    await waitFor(async () => (await records(after.entityRef)).length === 1);
    const dead = await waitFor(async () => {
      const rows = await listDeadLetters(svc.deps.db, "audit", "audit-records");
      return rows.length >= 2 ? rows : undefined;
    });
    expect(dead.map((d) => d.subject).sort()).toEqual([`${PREFIX}.CATEGORY_CREATED`, `${PREFIX}.GARBAGE`]);
    expect(dead.find((d) => d.subject.endsWith("GARBAGE"))?.error).toMatch(/undecodable/);
    expect(dead.find((d) => d.event_id === noTenant.id)?.error).toMatch(/rejected/);
    const admin = (await (await fetch(`${svc.adminUrl}/dead-letters`)).json()) as {
      deadLetters: { consumer: string }[];
    };
    expect(admin.deadLetters.length).toBeGreaterThanOrEqual(2);
    expect(admin.deadLetters[0]!.consumer).toBe("audit-records");
  });
});

/** A counter of the service's /metrics registry, by label values. */
async function counter(name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await svc.base.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (metric?.values ?? []) as { value: number; labels: Record<string, unknown> }[];
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

describe("batches", () => {
  it("a burst is recorded once per event, in batches; a poison event in it is dead-lettered alone", async () => {
    const js = jetstream(nc);
    const stmts = (mode: string) =>
      counter("fop_consumer_statements_total", { consumer: "audit-records", mode });
    const [batchBefore, singleBefore] = [await stmts("batch"), await stmts("single")];
    const good = Array.from({ length: 40 }, () => envelope());
    const poison = envelope({ tenant: "" });
    const burst = [...good.slice(0, 20), poison, ...good.slice(20)];
    // Published without waiting in between: they reach the consumer together, as one batch or few.
    await Promise.all(
      burst.map((e) =>
        js.publish(`${PREFIX}.CATEGORY_CREATED`, toBinary(EventEnvelopeSchema, e), { msgID: e.id }),
      ),
    );
    // A redelivery of some of them (same event ids) changes nothing.
    await Promise.all(
      good.slice(0, 5).map((e) =>
        js.publish(`${PREFIX}.CATEGORY_UPDATED`, toBinary(EventEnvelopeSchema, e), {
          msgID: `${e.id}-again`,
        }),
      ),
    );
    await waitFor(async () => {
      const counts = await Promise.all(good.map((e) => records(e.entityRef)));
      return counts.every((r) => r.length === 1) ? counts : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    for (const e of good) expect(await records(e.entityRef)).toHaveLength(1);
    const dead = await waitFor(async () => {
      const rows = await listDeadLetters(svc.deps.db, "audit", "audit-records");
      return rows.find((d) => d.event_id === poison.id);
    });
    expect(dead.error).toMatch(/rejected/);
    // The poison was refused before any statement, so no batch had to be retried one by one, and
    // the burst took fewer statements than it has events (45 messages arrived within moments).
    expect((await stmts("single")) - singleBefore).toBe(0);
    const batches = (await stmts("batch")) - batchBefore;
    expect(batches).toBeGreaterThan(0);
    expect(batches).toBeLessThan(good.length);
  });
});

describe("retention", () => {
  it("anonymizes after its period and deletes after the retention period", async () => {
    const js = jetstream(nc);
    const e = envelope();
    await js.publish(`${PREFIX}.CATEGORY_CREATED`, toBinary(EventEnvelopeSchema, e), { msgID: e.id });
    const [r] = await waitFor(async () => {
      const rows = await records(e.entityRef);
      return rows.length ? rows : undefined;
    });
    expect(r!).toMatchObject({ actorUsername: "ada", isAnonymized: false });
    const at = (d: Date) => ({ ...svc.deps, now: () => new Date(d.getTime() + 1) });

    await sweepRetention(at(r!.anonymizationDate));
    const [anon] = await records(e.entityRef);
    expect(anon).toMatchObject({
      actorUsername: "ANONYMIZED",
      clientRawInfo: "",
      isAnonymized: true,
      version: 2,
      actorId: "u1",
    });

    await sweepRetention(at(r!.deletionDate));
    expect(await records(e.entityRef)).toHaveLength(0);
  });

  it("sweeps of several replicas at once anonymize each record once, and one never waits for another", async () => {
    // Replica A's sweep has anonymized the records and holds them (its COMMIT is held back) when
    // replica B's sweep starts. Before the fix B waited for A's row locks and then, Postgres
    // rechecking only the locked rows and not the subquery that picked them, anonymized them again:
    // version 3, a change that never happened.
    const js = jetstream(nc);
    const tenant = `sweeps-${suffix}`;
    const events = Array.from({ length: 20 }, () => envelope({ tenant }));
    await Promise.all(
      events.map((e) =>
        js.publish(`${PREFIX}.CATEGORY_CREATED`, toBinary(EventEnvelopeSchema, e), { msgID: e.id }),
      ),
    );
    const ofTenant = () =>
      query<{ version: number; is_anonymized: boolean; anonymization_date: Date }>(svc.deps.db, {
        text: "select version, is_anonymized, anonymization_date from audit.audit_record where tenant_id = $1",
        params: [tenant],
      });
    const written = await waitFor(async () => {
      const rows = await ofTenant();
      return rows.length === events.length ? rows : undefined;
    });
    const due = Math.max(...written.map((r) => r.anonymization_date.getTime())) + 1;
    const now = () => new Date(due);
    let reached!: () => void;
    const atCommit = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = sweepRetention({ ...svc.deps, now, db: commitHeldBack(svc.deps.db, gate, reached) });
    await atCommit;
    const second = sweepRetention({ ...svc.deps, now });
    const secondAlone = await Promise.race([
      second.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000)),
    ]);
    release();
    await Promise.all([first, second]);
    const rows = await ofTenant();
    expect(rows.map((r) => [r.is_anonymized, r.version])).toEqual(events.map(() => [true, 2]));
    expect(secondAlone, "the second sweep finished while the first held its rows").toBe(true);
  });
});

/**
 * `db` whose next transaction holds its COMMIT back until `gate` settles, calling `reached` when it
 * gets there: a sweep caught between its writes and its commit.
 */
function commitHeldBack(db: SqlPool, gate: Promise<void>, reached: () => void): SqlPool {
  const connect = async () => {
    const client = await db.pool.connect();
    const original = client.query;
    client.query = ((...args: Parameters<typeof original>) => {
      if (args[0] !== "commit") return (original as (...a: unknown[]) => unknown).apply(client, args);
      client.query = original;
      reached();
      return gate.then(() => client.query("commit"));
    }) as typeof original;
    return client;
  };
  return { ...db, pool: { connect } as unknown as SqlPool["pool"] };
}
