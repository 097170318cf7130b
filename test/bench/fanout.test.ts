import { counter, createMetrics, METRICS } from "@fop/kit/metrics";
import { describe, expect, it } from "vitest";
import { consumersIn, fanoutPlan } from "./fanout.ts";
import type { LoadStats } from "./load.ts";
import { type ConsumerMode, formatFanout, summariseFanout } from "./report.ts";

describe("the fan-out scenario", () => {
  it.each([
    [1, ["all", "only", "all"]],
    [2, ["all", "only", "all", "only", "all"]],
  ])("runs %i round(s) as %j: every audit-only run between two with all consumers", (rounds, plan) => {
    expect(fanoutPlan(rounds)).toEqual(plan);
  });

  it("finds a service's consumers in its /metrics, and none where it has none", async () => {
    const metrics = createMetrics("notifications");
    const events = counter(metrics, METRICS.consumerEvents);
    // As eventConsumer does from its start: a series per outcome, at 0.
    for (const consumer of ["notifications-dispatch", "audit-records"])
      for (const outcome of ["done", "redelivered"]) events.inc({ consumer, outcome }, 0);
    expect(consumersIn(await metrics.registry.metrics())).toEqual([
      "audit-records",
      "notifications-dispatch",
    ]);
    expect(consumersIn(await createMetrics("carriers").registry.metrics())).toEqual([]);
  });

  const stats = (reqPerSec: number, cpu: Record<string, number>): LoadStats => ({
    reqPerSec,
    p50Ms: 10,
    p90Ms: 15,
    p99Ms: 20,
    completed: reqPerSec * 3,
    durationSec: 3,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: { 201: reqPerSec * 3 },
    cpuUsPerRequest: cpu,
  });
  const scenario = { name: "fanout", description: "d", write: "POST category", kept: "audit" };
  const runs: { mode: ConsumerMode; stats: LoadStats }[] = [
    { mode: "all", stats: stats(900, { gateway: 400, catalog: 500, audit: 100, notifications: 300 }) },
    { mode: "only", stats: stats(1000, { gateway: 400, catalog: 500, audit: 100, notifications: 10 }) },
    { mode: "all", stats: stats(700, { gateway: 500, catalog: 500, audit: 100, notifications: 400 }) },
    { mode: "only", stats: stats(1100, { gateway: 420, catalog: 480, audit: 100, notifications: 10 }) },
    { mode: "all", stats: stats(800, { gateway: 450, catalog: 500, audit: 100, notifications: 350 }) },
  ];

  it("sums the processes per run, takes each mode's median, and states the increase", () => {
    const f = summariseFanout(scenario, { notifications: ["notifications-dispatch"] }, runs);
    expect(f.runs).toEqual(["all", "only", "all", "only", "all"]);
    // all: 1300, 1500, 1400 -> 1400; only: 1010, 1010 -> 1010.
    expect(f.modes.all.totalCpuUsPerRequest).toBe(1400);
    expect(f.modes.only.totalCpuUsPerRequest).toBe(1010);
    expect(f.modes.all.cpuUsPerRequest.notifications).toBe(350);
    expect(f.modes.all.reqPerSec).toBe(800);
    expect(f.modes.only.rounds).toHaveLength(2);
    expect(f.cpuIncrease).toBe(0.386);
    expect(f.line).toBe(
      "fan-out: CPU per POST category with all consumers = 1,400 us vs audit-only 1,010 us (+38.6%)",
    );
  });

  it("states a decrease with its sign, and a missing CPU figure as such", () => {
    const cheaper = runs.map((r) => ({
      mode: (r.mode === "all" ? "only" : "all") as ConsumerMode,
      stats: r.stats,
    }));
    expect(summariseFanout(scenario, {}, cheaper).line).toMatch(
      / = 1,010 us vs audit-only 1,400 us \(-27\.9%\)$/,
    );
    const unmeasured = runs.map((r) => ({ mode: r.mode, stats: { ...r.stats, cpuUsPerRequest: {} } }));
    expect(summariseFanout(scenario, {}, unmeasured).line).toMatch(/ = - us vs audit-only - us \(-\)$/);
  });

  it("prints a row per mode, what was switched off, and the line", () => {
    const text = formatFanout(summariseFanout(scenario, { notifications: ["notifications-dispatch"] }, runs));
    const lines = text.split("\n");
    expect(lines[0]).toBe(
      "fanout: POST category, system only; audit-only: notifications (notifications-dispatch) restarted with EVENT_CONSUMERS=off",
    );
    expect(lines[3]).toMatch(/^all\s+3\s+800\s+10\.00\s+20\.00\s+0\/0\s+1,400\s+gateway 450, catalog 500/);
    expect(lines[4]).toMatch(/^audit-only\s+2\s+1,050\s+10\.00\s+20\.00\s+0\/0\s+1,010\s+gateway 410/);
    expect(lines[5]).toMatch(/^fan-out: CPU per POST category/);
  });
});
