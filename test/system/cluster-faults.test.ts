/**
 * The production topology under load, short (issue 27): one boot of test/cluster/cluster.ts (an
 * embedded Postgres and a three-server NATS cluster of its own, 2 replicas of every service and of
 * the gateway), first a 3-minute soak (`npm run soak` is the long one: no series may grow by more
 * than 10% after the warm-up), then every fault of `npm run chaos` in its short form (0 writes, audit
 * records or webhooks lost, 0 audit records doubled, no status but 503/504, readiness false and true
 * again around a Postgres restart, no process restarted).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChaos, SHORT, violations } from "../cluster/chaos.ts";
import type { ChaosCluster } from "../cluster/cluster.ts";
import { chaosTable } from "../cluster/report.ts";
import { runSoak, soakCluster, soakTable } from "../cluster/soak.ts";

const log = process.env.CLUSTER_LOG ? (m: string) => console.log(`[cluster] ${m}`) : undefined;
let cluster: ChaosCluster;

beforeAll(async () => {
  cluster = await soakCluster({ log, gatewayEnv: { RPC_TIMEOUT_MS: String(SHORT.rpcTimeoutMs) } });
}, 180_000);
afterAll(async () => {
  await cluster?.close();
}, 60_000);

describe("the cluster under load", () => {
  it("soaks for 3 minutes with no series growing by more than 10% after the warm-up", async () => {
    const series = await runSoak({ minutes: 3, warmupSec: 60, sampleSec: 15, rate: 40, log }, cluster);
    console.log(`\n${soakTable(series)}\n`);
    expect(series.filter((s) => !s.ok).map((s) => s.name)).toEqual([]);
  }, 300_000);

  it("keeps every promise through each fault: SIGKILLed replicas, a NATS server, a Postgres restart, a paused replica", async () => {
    const rows = await runChaos({ ...SHORT, log }, cluster);
    console.log(`\n${chaosTable(rows)}\n`);
    expect(rows.map((r) => r.fault)).toEqual([
      "kill-service-replicas",
      "kill-nats-server",
      "restart-postgres",
      "pause-service",
    ]);
    for (const r of rows) expect(r.acknowledged, r.fault).toBeGreaterThan(0);
    expect(violations(rows)).toEqual([]);
  }, 300_000);
});
