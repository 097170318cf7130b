/** The metric catalog and its helpers: get-or-create families, scrape-time gauges, time-boxed shared reads. */

import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  counter,
  createCounter,
  createMetrics,
  gauge,
  histogram,
  METRICS,
  observePool,
  onCollect,
  sharedRead,
  within,
} from "./metrics.ts";
import { grpcStatusName } from "./rpc/errors.ts";

const valuesOf = async (m: ReturnType<typeof createMetrics>, name: string) =>
  (await m.registry.getMetricsAsJSON()).find((x) => x.name === name)?.values ?? [];

describe("metric catalog", () => {
  it("names follow the conventions: snake_case, _total on counters only, base units", () => {
    for (const def of Object.values(METRICS)) {
      expect(def.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(def.name.endsWith("_total")).toBe(def.type === "counter");
      expect(def.name).not.toMatch(/_(milliseconds|ms|minutes|kilobytes|megabytes)(_|$)/);
      if (def.type === "histogram") expect(def.name).toMatch(/_seconds$/);
      for (const l of def.labelNames) expect(l).toMatch(/^[a-z][a-z0-9_]*$/);
    }
    const names = Object.values(METRICS).map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("creates a family once per registry and hands out the same one after", () => {
    const m = createMetrics("t");
    expect(counter(m, METRICS.consumerEvents)).toBe(counter(m, METRICS.consumerEvents));
    expect(histogram(m, METRICS.rpcServerDuration)).toBe(histogram(m, METRICS.rpcServerDuration));
    expect(createCounter(m, "fop_x_total", "x", ["a"])).toBe(createCounter(m, "fop_x_total", "x", ["a"]));
    // Another registry has its own.
    expect(counter(createMetrics("u"), METRICS.consumerEvents)).not.toBe(counter(m, METRICS.consumerEvents));
    // A name registered with another type is a bug, said at once.
    expect(() => gauge(m, { ...METRICS.consumerLag, name: "fop_x_total" })).toThrow(/counter/);
    expect(() => createCounter(m, "fop_x_total", "x", ["b"])).toThrow(/labels/);
  });

  it("gauges read per scrape; a source that throws or rejects does not fail the scrape", async () => {
    const m = createMetrics("t");
    let n = 0;
    const stop = onCollect(m, METRICS.outboxBacklog, (g) => g.set(++n));
    onCollect(m, METRICS.outboxBacklog, () => {
      throw new Error("boom");
    });
    onCollect(m, METRICS.outboxOldestAge, async () => {
      throw new Error("boom");
    });
    await m.registry.metrics();
    const text = await m.registry.metrics();
    expect(text).toMatch(/^fop_outbox_backlog_events\{service="t"\} 2$/m);
    stop();
    await m.registry.metrics();
    expect((await valuesOf(m, "fop_outbox_backlog_events"))[0]?.value).toBe(2);
  });

  it("pool gauges: idle and used connections, the maximum, waiting requests", async () => {
    const m = createMetrics("t");
    const pool = { totalCount: 3, idleCount: 1, waitingCount: 4, options: { max: 5 } };
    const stop = observePool(m, "main", pool);
    const text = await m.registry.metrics();
    expect(text).toContain(
      'db_client_connection_count{db_client_connection_pool_name="main",db_client_connection_state="idle",service="t"} 1',
    );
    expect(text).toContain(
      'db_client_connection_count{db_client_connection_pool_name="main",db_client_connection_state="used",service="t"} 2',
    );
    expect(text).toContain('db_client_connection_max{db_client_connection_pool_name="main",service="t"} 5');
    expect(text).toContain(
      'db_client_connection_pending_requests{db_client_connection_pool_name="main",service="t"} 4',
    );
    stop();
    expect(await m.registry.metrics()).not.toContain('pool_name="main"');
  });
});

describe("within / sharedRead", () => {
  it("within: the value, or undefined on failure or after the time", async () => {
    expect(await within(Promise.resolve(1), 100)).toBe(1);
    expect(await within(Promise.reject(new Error("x")), 100)).toBeUndefined();
    const started = Date.now();
    expect(await within(new Promise(() => {}), 50)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("one load at a time, shared by the callers of one scrape, fresh after reuseMs", async () => {
    let loads = 0;
    const read = sharedRead(
      async () => {
        loads++;
        await new Promise((r) => setTimeout(r, 20));
        return loads;
      },
      { timeoutMs: 1000, reuseMs: 50 },
    );
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    expect(await read()).toBe(1); // within reuseMs
    await new Promise((r) => setTimeout(r, 60));
    expect(await read()).toBe(2);
  });

  it("a load that hangs answers undefined in time and is not started again while it hangs", async () => {
    let loads = 0;
    let release: (v: number) => void = () => {};
    const read = sharedRead(
      () => {
        loads++;
        return new Promise<number>((r) => {
          release = r;
        });
      },
      { timeoutMs: 30 },
    );
    expect(await read()).toBeUndefined();
    expect(await read()).toBeUndefined();
    expect(loads).toBe(1);
    // When it settles at last, its value serves the next scrape.
    release(7);
    await new Promise((r) => setTimeout(r, 0));
    expect(await read()).toBe(7);
    expect(loads).toBe(1);
  });

  it("a failed load is tried again at the next read", async () => {
    let loads = 0;
    const read = sharedRead(
      async () => {
        if (++loads === 1) throw new Error("down");
        return "up";
      },
      { timeoutMs: 100 },
    );
    expect(await read()).toBeUndefined();
    expect(await read()).toBe("up");
  });
});

describe("grpcStatusName", () => {
  it("OK without an error, gRPC's canonical name for a Connect code, UNKNOWN for anything else", () => {
    expect(grpcStatusName()).toBe("OK");
    expect(grpcStatusName(new ConnectError("x", Code.NotFound))).toBe("NOT_FOUND");
    expect(grpcStatusName(new ConnectError("x", Code.Canceled))).toBe("CANCELLED");
    expect(grpcStatusName(new ConnectError("x", Code.Unauthenticated))).toBe("UNAUTHENTICATED");
    expect(grpcStatusName(new Error("plain"))).toBe("UNKNOWN");
  });
});
