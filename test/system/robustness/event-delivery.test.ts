/**
 * Nothing lost, nothing doubled: writes succeed while NATS is down and every event reaches the
 * audit log exactly once after it returns; a killed audit service catches up exactly once; two
 * relays on one outbox publish every event once.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startNatsServer } from "@fop/kit/dev/infra";
import { connectNats } from "@fop/kit/events/nats";
import { Outbox, outboxRelay } from "@fop/kit/events/outbox";
import { createLogger } from "@fop/kit/logger";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { eventually, type System, startSystem } from "../../support/system.ts";

const silent = createLogger({ service: "test", level: process.env.RELAY_LOG ?? "silent" });

async function auditCount(
  sys: System,
  api: ReturnType<System["as"]>,
  type: string,
): Promise<{ total: number; distinctRefs: number }> {
  const refs = new Set<string>();
  let total = 0;
  let after: string | undefined;
  for (;;) {
    const res = await api("POST", "/api/audits/search", {
      query: { and: [{ entityType: { eq: "CATEGORY" } }] },
      size: 250,
      ...(after ? { after } : {}),
    });
    for (const a of res.body.audits) {
      if (a.operation.name !== type) continue;
      total++;
      refs.add(a.entityRef);
    }
    if (!res.body.pageInfo.hasNextPage) break;
    after = res.body.pageInfo.endCursor;
  }
  void sys;
  return { total, distinctRefs: refs.size };
}

describe("event delivery", () => {
  it("keeps accepting writes while NATS is down; after it restarts every event is audited exactly once", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "fop-nats-"));
    let nats = await startNatsServer({ dataDir });
    const port = Number(new URL(nats.url).port);
    const sys = await startSystem({ natsUrl: nats.url, serviceEnv: { OUTBOX_POLL_MS: "200" } });
    try {
      const api = sys.as(await sys.token("offline"));
      const before = await api("POST", "/api/categories", { nameLocalized: { en_US: "before" } });
      await eventually(async () => (await auditCount(sys, api, "CATEGORY_CREATED")).total === 1);

      await nats.stop();
      const during: string[] = [];
      for (let i = 0; i < 25; i++) {
        const res = await api("POST", "/api/categories", { nameLocalized: { en_US: `during ${i}` } });
        expect(res.status).toBe(201);
        during.push(res.body.id);
      }
      const upd = await api("PUT", `/api/categories/${before.body.id}`, {
        version: 1,
        nameLocalized: { en_US: "changed offline" },
      });
      expect(upd.status).toBe(200);
      // Still pending in the outbox.
      const pending = await new pg.Client({ connectionString: sys.db.serviceUrl("catalog") });
      await pending.connect();
      const { rows } = await pending.query("select count(*)::int as n from catalog.outbox");
      await pending.end();
      expect(rows[0].n).toBe(26);

      nats = await startNatsServer({ dataDir, port });
      const result = await eventually(async () => {
        const c = await auditCount(sys, api, "CATEGORY_CREATED");
        return c.total >= 26 ? c : undefined;
      }, 30_000);
      await new Promise((r) => setTimeout(r, 1500)); // let any duplicate show up
      expect(await auditCount(sys, api, "CATEGORY_CREATED")).toEqual({ total: 26, distinctRefs: 26 });
      expect((await auditCount(sys, api, "CATEGORY_UPDATED")).total).toBe(1);
      expect(result.distinctRefs).toBe(26);
    } finally {
      await sys.close().catch(() => {});
      await nats.stop();
    }
  });

  it("an audit service killed while 200 categories are written ends with exactly 200 creation records", async () => {
    const sys = await startSystem({ childProcesses: ["audit"] });
    try {
      const api = sys.as(await sys.token("crashy"));
      const writes: Promise<number>[] = [];
      for (let i = 0; i < 200; i++) {
        writes.push(
          api("POST", "/api/categories", { nameLocalized: { en_US: `c${i}` } }).then((r) => r.status),
        );
        if (i % 10 === 9) await Promise.all(writes.slice(-10));
        // SIGKILL while the consumer is busy: no graceful shutdown, deliveries in flight.
        if (i === 60) sys.killService("audit");
      }
      expect((await Promise.all(writes)).every((s) => s === 201)).toBe(true);
      // Some records, not all, were written before the kill: the consumer really was mid-stream.
      const db = new pg.Client({ connectionString: sys.db.serviceUrl("audit") });
      await db.connect();
      const { rows } = await db.query("select count(*)::int as n from audit.audit_record");
      await db.end();
      expect(rows[0].n).toBeGreaterThan(0);
      expect(rows[0].n).toBeLessThan(200);
      await sys.restartService("audit");
      await eventually(async () => (await auditCount(sys, api, "CATEGORY_CREATED")).total >= 200, 60_000);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await auditCount(sys, api, "CATEGORY_CREATED")).toEqual({ total: 200, distinctRefs: 200 });
    } finally {
      await sys.close();
    }
  });

  it("two relays on one outbox publish every event once", async () => {
    // The service's own relay is told to poll rarely; two extra relays race for the rows.
    const sys = await startSystem({ serviceEnv: { OUTBOX_POLL_MS: "600000" } });
    const nc = await connect({ servers: sys.events.natsUrl });
    try {
      await sys.services.catalog.workers![0]!.stop(); // the catalog's built-in relay
      // Every publish of each relay is counted by event id: proof independent of JetStream's
      // deduplication, which would hide a double publish.
      const published: string[][] = [[], []];
      const relays = [0, 1].map(async (n) => {
        const natsConn = await connectNats(
          sys.events.natsUrl,
          `relay-${n}`,
          {
            stream: sys.events.stream,
            subjectPrefix: sys.events.subjectPrefix,
            replicas: 1,
            maxAgeMs: 3600_000,
            duplicateWindowMs: 120_000,
          },
          silent,
        );
        const counting: typeof natsConn.publishAll = (messages, timeoutMs) => {
          published[n]!.push(...messages.map((m) => m.msgID));
          return natsConn.publishAll(messages, timeoutMs);
        };
        const relay = outboxRelay({
          outbox: new Outbox({ schema: "catalog", subjectPrefix: sys.events.subjectPrefix }),
          databaseUrl: sys.db.serviceUrl("catalog"),
          nats: { ...natsConn, publishAll: counting },
          logger: silent,
          pollMs: 20,
          batchSize: 7,
          name: `relay-${n}`,
        });
        await relay.start();
        return { relay, natsConn };
      });
      const running = await Promise.all(relays);
      const api = sys.as(await sys.token("relays"));
      await Promise.all(
        Array.from({ length: 150 }, (_, i) =>
          api("POST", "/api/categories", { nameLocalized: { en_US: `r${i}` } }),
        ),
      );
      const jsm = await jetstreamManager(nc);
      await eventually(async () => (await jsm.streams.info(sys.events.stream)).state.messages >= 150, 20_000);
      await new Promise((r) => setTimeout(r, 500));
      const all = [...published[0]!, ...published[1]!];
      expect(all).toHaveLength(150);
      expect(new Set(all).size).toBe(150);
      expect(published[0]!.length).toBeGreaterThan(0);
      expect(published[1]!.length).toBeGreaterThan(0);
      expect((await jsm.streams.info(sys.events.stream)).state.messages).toBe(150);
      for (const r of running) {
        await r.relay.stop();
        await r.natsConn.close();
      }
    } finally {
      await nc.close();
      await sys.close();
    }
  });
});
