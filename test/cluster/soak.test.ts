/**
 * The production topology under a steady load, short (issue 27): test/cluster/cluster.ts (an
 * embedded Postgres and a three-server NATS cluster of its own, 2 replicas of every service and of
 * the gateway) soaked for 3 minutes; no series may grow after the warm-up by more than soak.ts
 * allows (10% of its mean; a process's heap and external memory after a full GC, 1.5 MiB).
 * `npm run soak` is the long one.
 *
 * The faults (`npm run chaos -- --short`) are not run here yet: in one of two CI runs, with the rest
 * of the suite beside it, both notifications replicas were still not ready 30 s after Postgres came
 * back and webhooks were not delivered within a minute; that is under investigation (issue 27).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSoak, type SoakCluster, soakCluster, soakTable } from "./soak.ts";

const log = process.env.CLUSTER_LOG ? (m: string) => console.log(`[cluster] ${m}`) : undefined;
let cluster: SoakCluster;

beforeAll(async () => {
  cluster = await soakCluster(log ? { log } : {});
}, 180_000);
afterAll(async () => {
  await cluster?.close();
}, 60_000);

describe("the cluster under a steady load", () => {
  it("soaks for 3 minutes with no series growing after the warm-up", async () => {
    const series = await runSoak({ minutes: 3, warmupSec: 60, sampleSec: 15, rate: 40, log }, cluster);
    console.log(`\n${soakTable(series)}\n`);
    expect(series.filter((s) => !s.ok).map((s) => s.name)).toEqual([]);
  }, 300_000);
});
