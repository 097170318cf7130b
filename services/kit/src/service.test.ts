/**
 * A service's drain (startService's close(), what SIGTERM runs): unready at once, the running call
 * answered, nothing served after it ends; EVENT_CONSUMERS=off: a service that consumes nothing
 * (real Postgres and NATS).
 */
import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { inTransaction } from "./db/tx.ts";
import { eventConsumer } from "./events/consumer.ts";
import { kitEventMigrations } from "./events/migrations.ts";
import { connectNats, type Nats } from "./events/nats.ts";
import { newId } from "./ids.ts";
import { createLogger } from "./logger.ts";
import { callOptions, createRpcClient } from "./rpc/client.ts";
import type { ServiceModule } from "./service.ts";
import { createTestDatabase, type TestDatabase } from "./testing/db.ts";
import { EVENT_TEST_CONTEXT } from "./testing/events.ts";
import { testCredentials } from "./testing/rpc.ts";
import { startTestService } from "./testing/service.ts";

const suffix = randomBytes(4).toString("hex");
const SCHEMA = `kit_service_${suffix}`;
const STREAM = `SERVICE_T_${suffix.toUpperCase()}`;
const ctx = {
  tenant: "t1",
  principal: { userId: "u", username: "ada", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "test" },
};

/** A catalog whose GetCategory takes as many ms as its id says. */
const slowCatalog: ServiceModule<object> = {
  name: "catalog",
  ports: { rpc: 0, admin: 0 },
  schema: SCHEMA,
  entities: [],
  migrations: kitEventMigrations,
  config: {},
  createDeps: () => ({}),
  routes: () => (router) =>
    router.service(CatalogService, {
      async getCategory(req) {
        await new Promise((r) => setTimeout(r, Number(req.id)));
        return { category: { id: req.id } };
      },
    }),
};

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase(inject("adminUrl"), [slowCatalog as ServiceModule<unknown>]);
});
afterAll(async () => {
  await tdb?.drop();
});

describe("a service's drain", () => {
  it("turns unready at once, answers the running call, then stops serving", async () => {
    const svc = await startTestService(slowCatalog, {
      DATABASE_URL: tdb.serviceUrl(SCHEMA),
      EVENTS_STREAM: STREAM,
      EVENTS_SUBJECT_PREFIX: `s${suffix}.events`,
    });
    const readyz = () =>
      fetch(`${svc.adminUrl}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
    try {
      expect(await readyz()).toBe(200);
      const client = createRpcClient(CatalogService, svc.rpcUrl, testCredentials, { reconnectWindowMs: 0 });
      const running = client.getCategory({ id: "600" }, callOptions(ctx));
      await new Promise((r) => setTimeout(r, 100));
      const closed = svc.close();
      expect(await readyz()).toBe(503);
      expect((await running).category?.id).toBe("600");
      await closed;
      expect(await readyz()).toBe(0);
      const after = ConnectError.from(
        await client.getCategory({ id: "0" }, callOptions(ctx)).catch((e) => e),
      );
      expect(after.code).toBe(Code.Unavailable);
    } finally {
      await svc.close();
      const { connect } = await import("@nats-io/transport-node");
      const { jetstreamManager } = await import("@nats-io/jetstream");
      const nc = await connect({ servers: inject("natsUrl") });
      await (await jetstreamManager(nc)).streams.delete(STREAM).catch(() => {});
      await nc.close();
    }
  });
});

describe("readiness", () => {
  it("answers at once while every connection of the pool is busy: the probe has a connection of its own", async () => {
    const svc = await startTestService(slowCatalog, {
      DATABASE_URL: tdb.serviceUrl(SCHEMA),
      EVENTS_STREAM: `READY_T_${suffix.toUpperCase()}`,
      EVENTS_SUBJECT_PREFIX: `r${suffix}.events`,
      DB_POOL_MAX: "1",
    });
    try {
      // The pool's only connection, busy for 3 s.
      const busy = inTransaction(svc.base.db, (tx) => tx.query({ text: "select pg_sleep(3)", params: [] }));
      await new Promise((r) => setTimeout(r, 200));
      const started = Date.now();
      const res = await fetch(`${svc.adminUrl}/readyz`);
      const took = Date.now() - started;
      expect(res.status).toBe(200);
      expect(took).toBeLessThan(1_500);
      await busy;
    } finally {
      await svc.close();
      const { connect } = await import("@nats-io/transport-node");
      const { jetstreamManager } = await import("@nats-io/jetstream");
      const nc = await connect({ servers: inject("natsUrl") });
      await (await jetstreamManager(nc)).streams.delete(`READY_T_${suffix.toUpperCase()}`).catch(() => {});
      await nc.close();
    }
  });
});

describe("EVENT_CONSUMERS=off", () => {
  const stream = `SWITCH_T_${suffix.toUpperCase()}`;
  const prefix = `w${suffix}.events`;
  const CONSUMER = "catalog-switch-test";
  const handled: string[] = [];
  const started: string[] = [];
  /** A service with one event consumer (it notes what it handles) and one other worker. */
  const consuming: ServiceModule<object> = {
    ...slowCatalog,
    workers: (_deps, base) => [
      eventConsumer(
        { db: base.db, nats: base.nats, logger: base.logger, schema: SCHEMA },
        {
          name: CONSUMER,
          types: ["SWITCH_TESTED"],
          handle: async (_tx, event) => {
            handled.push(event.id);
          },
        },
      ),
      {
        name: "sweeper",
        start: async () => void started.push("sweeper"),
        stop: async () => {},
      },
    ],
  };
  const env = { DATABASE_URL: "", EVENTS_STREAM: stream, EVENTS_SUBJECT_PREFIX: prefix };
  let nats: Nats;
  beforeAll(async () => {
    env.DATABASE_URL = tdb.serviceUrl(SCHEMA);
    nats = await connectNats(
      inject("natsUrl"),
      "switch-test",
      { stream, subjectPrefix: prefix, replicas: 1, maxAgeMs: 600_000, duplicateWindowMs: 60_000 },
      createLogger({ service: "test", level: "silent" }),
    );
  });
  afterAll(async () => {
    await nats?.jsm.streams.delete(stream).catch(() => {});
    await nats?.close();
  });
  const durables = async () => (await nats.jsm.consumers.list(stream).next()).map((c) => c.name);
  const until = async (check: () => Promise<boolean>, what: string) => {
    // (The stream is there once the relay has made sure of it.)
    for (const end = Date.now() + 15_000; !(await check().catch(() => false)); ) {
      if (Date.now() > end) throw new Error(`${what}: not within 15 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it("starts no durable consumer and consumes nothing; the relay and the other workers run; on (the default), the event is consumed", async () => {
    const off = await startTestService(consuming, { ...env, EVENT_CONSUMERS: "off" });
    let eventId: string;
    try {
      expect(off.workers.map((w) => w.name)).toEqual(["outbox-relay", "sweeper"]);
      expect(started).toEqual(["sweeper"]);
      // Its own write goes out: the outbox relay runs.
      [eventId] = (await inTransaction(off.base.db, (tx) =>
        off.base.outbox.record(tx, EVENT_TEST_CONTEXT, [
          {
            type: "SWITCH_TESTED",
            entityType: "CATEGORY",
            entityRef: newId(),
            entityVersion: 1,
            entityCreated: new Date(),
          },
        ]),
      )) as [string];
      await until(async () => (await nats.jsm.streams.info(stream)).state.messages === 1, "published");
      // Time a running consumer would need to take it (it does, below, well within this).
      await new Promise((r) => setTimeout(r, 1000));
      expect(handled).toEqual([]);
      expect(await durables()).toEqual([]);
      // Its dead letters can still be replayed (the consumer is known, not running): none here.
      const replay = await fetch(`${off.adminUrl}/dead-letters/replay`, {
        method: "POST",
        body: JSON.stringify({ consumer: CONSUMER }),
      });
      expect(replay.status).toBe(200);
    } finally {
      await off.close();
    }

    const on = await startTestService(consuming, env);
    try {
      await until(async () => handled.length === 1, "consumed");
      expect(handled).toEqual([eventId]);
      expect(await durables()).toEqual([CONSUMER]);
    } finally {
      await on.close();
    }
  });
});
