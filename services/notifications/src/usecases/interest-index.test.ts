/**
 * The interest index's reload rules, with the data it loads held in the test (a list of
 * subscriptions, as the table would give them) and, for the replicas, the suite's real NATS.
 */
import { randomBytes } from "node:crypto";
import { entityTypeOfKind } from "@fop/contracts/event-kinds";
import { createLogger } from "@fop/kit/logger";
import { createMetrics, type Metrics } from "@fop/kit/metrics";
// The suite's NATS (inject("natsUrl")) as the kit's global setup provides it.
import type {} from "@fop/kit/testing/db";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { buildInterest, type Interest, type SubscribedKind } from "../domain/interest.ts";
import {
  dispatchLanes,
  type InterestIndex,
  type InterestIndexOptions,
  interestIndex,
} from "./interest-index.ts";

const logger = createLogger({ service: "test", level: "silent" });

/** A data source the test changes; each load may be held until the test releases it. */
function source() {
  const rows: SubscribedKind[] = [];
  let hold = false;
  let fail: Error | undefined;
  const waiting: (() => void)[] = [];
  let loads = 0;
  let running = 0;
  let maxRunning = 0;
  return {
    rows,
    get loads() {
      return loads;
    },
    get maxRunning() {
      return maxRunning;
    },
    holdLoads(on: boolean) {
      hold = on;
      if (!on) for (const release of waiting.splice(0)) release();
    },
    failLoads(err: Error | undefined) {
      fail = err;
    },
    /** Loads started and held so far. */
    held: () => waiting.length,
    load: async (): Promise<Interest> => {
      loads++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      try {
        // What the table holds when the statement runs: before it is held.
        const snapshot = [...rows];
        if (hold) await new Promise<void>((r) => waiting.push(r));
        if (fail) throw fail;
        return buildInterest(snapshot, []);
      } finally {
        running--;
      }
    },
  };
}

const started: InterestIndex[] = [];
afterEach(async () => {
  for (const i of started.splice(0)) await i.stop();
});

async function start(
  src: ReturnType<typeof source>,
  opts: Partial<InterestIndexOptions> = {},
): Promise<InterestIndex> {
  const index = interestIndex({ load: src.load, refreshMs: 3_600_000, logger, ...opts });
  started.push(index);
  await index.start();
  return index;
}

const tick = () => new Promise((r) => setTimeout(r, 5));
const value = (m: Metrics, name: string, labels: Record<string, string>) =>
  m.registry
    .getSingleMetric(name)
    ?.get()
    .then((r) => r.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value);

describe("the interest index", () => {
  it("decides at once from a fresh index; waits for the first load", async () => {
    const src = source();
    src.rows.push({ tenant: "acme", event: "PICK_JOB_CREATED" });
    src.holdLoads(true);
    const index = await start(src);
    const first = index.accepts("acme", "PICK_JOB_CREATED");
    expect(first).toBeInstanceOf(Promise);
    let settled = false;
    void (first as Promise<boolean>).then(() => (settled = true));
    await tick();
    expect(settled).toBe(false); // nothing decided before the index is there
    src.holdLoads(false);
    expect(await first).toBe(true);
    expect(index.accepts("acme", "PICK_JOB_CREATED")).toBe(true);
    expect(index.accepts("acme", "CATEGORY_CREATED")).toBe(false);
    expect(index.accepts("globex", "PICK_JOB_CREATED")).toBe(false);
    expect(index.anyTenantWants("PICK_JOB_CREATED")).toBe(true);
    expect(index.anyTenantWants("CATEGORY_CREATED")).toBe(false);
  });

  it("after invalidate(), decisions wait for the reload and see the change", async () => {
    const src = source();
    const index = await start(src);
    expect(await index.accepts("acme", "CATEGORY_CREATED")).toBe(false);
    src.rows.push({ tenant: "acme", event: "CATEGORY_CREATED" });
    src.holdLoads(true);
    index.invalidate();
    const decision = index.accepts("acme", "CATEGORY_CREATED");
    expect(decision).toBeInstanceOf(Promise);
    expect(index.anyTenantWants("CATEGORY_CREATED")).toBe(true); // stale: maybe
    src.holdLoads(false);
    expect(await decision).toBe(true);
    expect(index.accepts("acme", "CATEGORY_CREATED")).toBe(true);
  });

  it("mayWant never waits: a stale index answers wanted, a fresh one decides", async () => {
    const src = source();
    const metrics = createMetrics("notifications");
    const index = await start(src, { metrics });
    await index.accepts("acme", "X"); // loaded: skipped
    expect(index.mayWant("acme", "CATEGORY_CREATED")).toBe(false);
    src.rows.push({ tenant: "acme", event: "CATEGORY_CREATED" });
    src.holdLoads(true);
    index.invalidate();
    expect(index.mayWant("acme", "CATEGORY_DELETED")).toBe(true); // stale: no decision yet
    src.holdLoads(false);
    await tick();
    expect(index.mayWant("acme", "CATEGORY_CREATED")).toBe(true);
    expect(index.mayWant("acme", "CATEGORY_DELETED")).toBe(false);
    const count = (decision: string) => value(metrics, "fop_notifications_interest_total", { decision });
    expect([await count("wanted"), await count("skipped"), await count("fallback")]).toEqual([1, 3, 1]);
  });

  it("after a failed load, mayWant and anyTenantWants try again once retryMs has passed", async () => {
    const src = source();
    src.failLoads(new Error("database down"));
    const index = await start(src, { retryMs: 50 });
    await tick();
    expect(src.loads).toBe(1);
    expect(index.mayWant("acme", "CATEGORY_CREATED")).toBe(true);
    expect(index.anyTenantWants("CATEGORY_CREATED")).toBe(true);
    expect(src.loads).toBe(1);
    src.failLoads(undefined);
    await new Promise((r) => setTimeout(r, 70));
    expect(index.anyTenantWants("CATEGORY_CREATED")).toBe(true); // starts the load
    await tick();
    expect(src.loads).toBe(2);
    expect(index.mayWant("acme", "CATEGORY_CREATED")).toBe(false);
    expect(index.anyTenantWants("CATEGORY_CREATED")).toBe(false);
  });

  it("an invalidation during a load is followed by another load, one at a time", async () => {
    const src = source();
    const index = await start(src);
    await index.accepts("acme", "X");
    src.holdLoads(true);
    index.invalidate(); // load 2 starts, sees no rows
    await tick();
    expect(src.held()).toBe(1);
    src.rows.push({ tenant: "acme", event: "CATEGORY_CREATED" }); // committed during load 2
    index.invalidate();
    index.invalidate();
    const decisions = [index.accepts("acme", "CATEGORY_CREATED"), index.accepts("acme", "CATEGORY_CREATED")];
    src.holdLoads(false);
    expect(await Promise.all(decisions)).toEqual([true, true]); // from load 3, not load 2
    expect(src.loads).toBe(3);
    expect(src.maxRunning).toBe(1);
  });

  it("the periodic refresh picks up changes without making decisions wait", async () => {
    const src = source();
    const index = await start(src, { refreshMs: 50 });
    expect(await index.accepts("acme", "CATEGORY_CREATED")).toBe(false);
    src.holdLoads(true);
    src.rows.push({ tenant: "acme", event: "CATEGORY_CREATED" });
    await new Promise((r) => setTimeout(r, 80));
    expect(src.held()).toBeGreaterThanOrEqual(1);
    expect(index.accepts("acme", "CATEGORY_CREATED")).toBe(false); // not known stale: no wait
    src.holdLoads(false);
    await tick();
    expect(index.accepts("acme", "CATEGORY_CREATED")).toBe(true);
  });

  it("while the index cannot be loaded, every event is wanted; a load is tried again after retryMs", async () => {
    const src = source();
    const metrics = createMetrics("notifications");
    src.failLoads(new Error("database down"));
    const index = await start(src, { retryMs: 100, metrics });
    expect(await index.accepts("acme", "CATEGORY_CREATED")).toBe(true);
    expect(index.accepts("acme", "CATEGORY_CREATED")).toBe(true); // within retryMs: no new load
    expect(src.loads).toBe(1);
    expect(index.anyTenantWants("CATEGORY_CREATED")).toBe(true);
    src.failLoads(undefined);
    await new Promise((r) => setTimeout(r, 120));
    expect(await index.accepts("acme", "CATEGORY_CREATED")).toBe(false);
    expect(src.loads).toBe(2);
    expect(await value(metrics, "fop_notifications_interest_total", { decision: "fallback" })).toBe(2);
    expect(await value(metrics, "fop_notifications_interest_total", { decision: "skipped" })).toBe(1);
    expect(await value(metrics, "fop_notifications_interest_total", { decision: "wanted" })).toBe(0);
    expect(await value(metrics, "fop_notifications_interest_reloads_total", { outcome: "failed" })).toBe(1);
    expect(await value(metrics, "fop_notifications_interest_reloads_total", { outcome: "ok" })).toBe(1);
  });

  it("a load that hangs counts as failed after loadTimeoutMs: decisions do not hang with it", async () => {
    const src = source();
    src.holdLoads(true);
    const index = await start(src, { loadTimeoutMs: 50, retryMs: 60_000 });
    const t0 = Date.now();
    expect(await index.accepts("acme", "CATEGORY_CREATED")).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1_000);
    src.holdLoads(false);
  });
});

describe("replicas", () => {
  let nc1: NatsConnection;
  let nc2: NatsConnection;
  const subject = `t${randomBytes(4).toString("hex")}.events_interest.notifications`;
  beforeAll(async () => {
    nc1 = await connect({ servers: inject("natsUrl") });
    nc2 = await connect({ servers: inject("natsUrl") });
  });
  afterAll(async () => {
    await nc1?.close();
    await nc2?.close();
  });

  it("one replica's invalidate() makes the other reload before it decides again", async () => {
    const src = source(); // the one database both read
    const a = await start(src, { bus: { nc: nc1, subject } });
    const b = await start(src, { bus: { nc: nc2, subject } });
    expect(await a.accepts("acme", "CATEGORY_CREATED")).toBe(false);
    expect(await b.accepts("acme", "CATEGORY_CREATED")).toBe(false);
    const loads = src.loads;
    src.rows.push({ tenant: "acme", event: "CATEGORY_CREATED" });
    a.invalidate(); // a's write committed
    expect(await a.accepts("acme", "CATEGORY_CREATED")).toBe(true);
    await nc1.flush();
    await nc2.flush();
    await tick();
    expect(await b.accepts("acme", "CATEGORY_CREATED")).toBe(true);
    // Each reloaded once: a does not reload again on its own broadcast.
    expect(src.loads).toBe(loads + 2);
  });
});

describe("dispatchLanes", () => {
  it("one lane per entity type of our kinds, one per type of an external kind; each once, sorted", () => {
    expect(
      dispatchLanes([
        "PICK_JOB_CREATED",
        "PICK_JOB_PICKED",
        "CATEGORY_UPDATED",
        "ORDER_CANCELLED",
        "PICK_JOB_CREATED",
        "LOCKED_ORDER_CREATED",
      ]),
    ).toEqual([
      { entityType: "CATEGORY" },
      { type: "LOCKED_ORDER_CREATED" },
      { type: "ORDER_CANCELLED" },
      { entityType: "PICK_JOB" },
    ]);
    expect(dispatchLanes([])).toEqual([]);
  });

  it("covers every event type an interest holds: each reaches dispatch through one of its lanes", () => {
    const interest = buildInterest(
      [
        { tenant: "acme", event: "PICK_JOB_PICKING_FINISHED" },
        { tenant: "acme", event: "ITEM_RETURN_JOB_UPDATED" },
      ],
      [
        {
          tenant: "acme",
          channels: [
            { enabled: true, events: ["ORDER_CANCELLED"] },
            { enabled: false, events: ["ROUTING_PLAN_WAITING"] },
          ],
        },
      ],
    );
    const lanes = dispatchLanes(interest.anyTenant);
    expect(lanes).toContainEqual({ entityType: "PICK_JOB" });
    expect(lanes).toContainEqual({ type: "ORDER_CANCELLED" });
    expect(lanes).not.toContainEqual({ type: "ROUTING_PLAN_WAITING" }); // a disabled channel
    for (const type of interest.anyTenant) {
      const entityType = entityTypeOfKind(type);
      expect(lanes, type).toContainEqual(entityType ? { entityType } : { type });
    }
  });
});
