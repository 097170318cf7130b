/**
 * Faults under load (`npm run chaos`; CI runs the short version after a short soak,
 * test/cluster/topology.test.ts): the
 * production topology on this machine (cluster.ts: 2 replicas of every service and of the gateway,
 * a three-server NATS cluster, a Postgres of its own) under a steady mixed load (traffic.ts), and
 * in turn:
 *  1. SIGKILL one replica of each service (restarted after `holdMs`, as Kubernetes restarts a pod);
 *  2. SIGKILL one NATS server (started again after `holdMs`);
 *  3. restart Postgres (stopped for `holdMs`): services reconnect by themselves, readiness goes
 *     false and true again, no process restarts;
 *  4. SIGSTOP the picking service (every replica) past the gateway's RPC deadline, then SIGCONT.
 * Per fault: requests sent and failed (by status: only 503/504 for requests
 * in flight are acceptable: never a 500, a dropped connection or no answer), acknowledged writes lost, audit records lost or doubled,
 * webhook deliveries lost, the time until requests succeeded again, and any process that exited
 * (crashed) during the phase. Processes are signalled by the pid this run started them with, never
 * by name.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { startWebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import { type ChaosCluster, SERVICES, startCluster } from "./cluster.ts";
import { Ledger } from "./ledger.ts";
import { chaosTable, type FaultRow, statusList } from "./report.ts";
import { failures, type Outcome, tenantTraffic } from "./traffic.ts";

export interface ChaosOptions {
  /** Requests per second of the load (at most; see `capacityShare`). */
  rate: number;
  /**
   * Given: the run first measures what the system carries of the mix (closed loop, after a warm-up)
   * and loads it with at most this share of that. Faults are what the run is about: offered more
   * than it carries, the system is overloaded before any fault and every phase measures that
   * instead (on a machine where the topology carried ~115 requests/s, 200/s left thousands of
   * requests unanswered before the first fault).
   */
  capacityShare?: number;
  /** Load before each fault. */
  steadyMs: number;
  /** How long a fault lasts (a process down, a server stopped). */
  holdMs: number;
  /** Load after each fault is healed. */
  afterMs: number;
  /** The gateway's deadline per service call (the pause outlasts it). */
  rpcTimeoutMs: number;
  /** Which faults (default: all, in order). */
  faults?: FaultName[];
  log?: (msg: string) => void;
}

export const FAULTS = [
  "kill-service-replicas",
  "kill-nats-server",
  "restart-postgres",
  "pause-service",
] as const;
export type FaultName = (typeof FAULTS)[number];

export const FULL: ChaosOptions = {
  rate: 200,
  capacityShare: 0.6,
  steadyMs: 5_000,
  holdMs: 8_000,
  afterMs: 10_000,
  // The deployed deadline (gateway RPC_TIMEOUT_MS).
  rpcTimeoutMs: 10_000,
};
export const SHORT: ChaosOptions = {
  rate: 60,
  capacityShare: 0.6,
  steadyMs: 2_000,
  holdMs: 4_000,
  afterMs: 5_000,
  rpcTimeoutMs: 5_000,
};

const TENANT = "chaos";
const HOOK_PATH = "/chaos";

interface Phase {
  fault: FaultName;
  from: number;
  faultAt: number;
  to: number;
  notes: string[];
}

/** Polls every replica's /readyz while `during` runs: which were seen not ready, and ready again at the end. */
async function watchReadiness(cluster: ChaosCluster, during: () => Promise<void>): Promise<string[]> {
  const urls = SERVICES.flatMap((s) => cluster.replicas(s).map((r) => ({ s, url: `${r.adminUrl}/readyz` })));
  const seenDown = new Set<string>();
  let watching = true;
  const watch = (async () => {
    while (watching) {
      await Promise.all(
        urls.map(async ({ s, url }) => {
          const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
            (r) => r.ok,
            () => false,
          );
          if (!ok) seenDown.add(s);
        }),
      );
      await sleep(200);
    }
  })();
  await during();
  watching = false;
  await watch;
  const notReady: string[] = [];
  for (const { s, url } of urls) {
    const ok = await waitOk(url, 30_000);
    if (!ok) notReady.push(s);
  }
  return [
    `not ready while Postgres was down: ${seenDown.size}/${SERVICES.length} services`,
    notReady.length ? `NOT ready again: ${notReady.join(", ")}` : "every replica ready again",
  ];
}

async function waitOk(url: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return true;
    await sleep(200);
  }
  return false;
}

async function inject(cluster: ChaosCluster, fault: FaultName, opts: ChaosOptions): Promise<string[]> {
  switch (fault) {
    case "kill-service-replicas": {
      for (const s of SERVICES) cluster.killReplica(s, 0);
      await sleep(opts.holdMs);
      await Promise.all(SERVICES.map((s) => cluster.restartReplica(s, 0)));
      return [`SIGKILLed replica 0 of ${SERVICES.length} services, restarted after ${opts.holdMs / 1000} s`];
    }
    case "kill-nats-server": {
      cluster.nats.kill(1);
      await sleep(opts.holdMs);
      await cluster.nats.start(1);
      return [`SIGKILLed NATS server 1 of 3, started again after ${opts.holdMs / 1000} s`];
    }
    case "restart-postgres": {
      const pids = cluster.allPids();
      const notes = await watchReadiness(cluster, async () => {
        await cluster.pg.stop();
        await sleep(opts.holdMs);
        await cluster.pg.start();
      });
      const after = cluster.allPids();
      const restarted = pids.filter((p) => !after.includes(p)).length;
      return [...notes, restarted ? `${restarted} processes restarted` : "no process restarted"];
    }
    case "pause-service": {
      // Every picking replica: which replica a gateway's one HTTP/2 connection landed on is the
      // balancer's choice, and a paused replica no connection reaches would test nothing.
      const pauseMs = Math.max(opts.holdMs, opts.rpcTimeoutMs + 2_000);
      const n = cluster.replicas("picking").length;
      for (let i = 0; i < n; i++) cluster.signalReplica("picking", i, "SIGSTOP");
      await sleep(pauseMs);
      for (let i = 0; i < n; i++) cluster.signalReplica("picking", i, "SIGCONT");
      return [
        `SIGSTOPped every picking replica (${n}) for ${pauseMs / 1000} s (RPC deadline ${opts.rpcTimeoutMs / 1000} s)`,
      ];
    }
  }
}

/**
 * The cluster's processes that are gone (signal 0 to the pids this run started them with): a crash
 * the fault caused. Readiness alone only says "not ready", and the pids are the same as before.
 */
function exited(cluster: ChaosCluster): string[] {
  return cluster
    .processes()
    .filter((p) => {
      try {
        process.kill(p.pid, 0);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === "ESRCH";
      }
    })
    .map((p) => p.name);
}

/** The phase's recovery: from the fault until the last failed request of the phase was answered. */
function recoverMs(outcomes: Outcome[], phase: Phase): number {
  let last = 0;
  for (const o of outcomes) {
    if (o.at < phase.from || o.at >= phase.to || (o.status >= 200 && o.status < 300)) continue;
    last = Math.max(last, o.at + o.ms);
  }
  return last ? Math.max(0, last - phase.faultAt) : 0;
}

/**
 * The requests of the phase that got no answer or a dropped connection, counted by kind and by the
 * second (from the fault) they were sent in ("" when none): where to look when one shows up.
 */
function unanswered(outcomes: Outcome[], phase: Phase): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    if (o.at < phase.from || o.at >= phase.to || o.status > 0) continue;
    const key = `${o.status === 0 ? "dropped" : "unanswered"} ${o.kind} at ${Math.floor((o.at - phase.faultAt) / 1000)} s`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (!counts.size) return "";
  const list = [...counts].map(([k, n]) => `${k} x${n}`);
  const shown = list.slice(0, 12).join(", ");
  return `not answered (sent in the second from the fault): ${shown}${list.length > 12 ? `, and ${list.length - 12} more` : ""}`;
}

/** The cluster the chaos run needs (shared with the soak in CI: one boot for both). */
export const chaosCluster = (opts: Pick<ChaosOptions, "rpcTimeoutMs" | "log">) =>
  startCluster({ replicas: 2, gatewayEnv: { RPC_TIMEOUT_MS: String(opts.rpcTimeoutMs) }, log: opts.log });

/** Runs the faults on `given` (left running) or on a cluster of its own (closed at the end). */
export async function runChaos(opts: ChaosOptions, given?: ChaosCluster): Promise<FaultRow[]> {
  const log = opts.log ?? (() => {});
  const hooks = await startWebhookReceiver();
  const cluster = given ?? (await chaosCluster(opts));
  const ledger = new Ledger(cluster.sys.db.url, hooks, HOOK_PATH);
  let progress: NodeJS.Timeout | undefined;
  try {
    const traffic = await tenantTraffic(cluster.sys, {
      tenant: TENANT,
      user: "chaos.monkey",
      facilityName: "Chaos store",
      rate: opts.rate,
      webhookUrl: hooks.url(HOOK_PATH),
    });
    let rate = opts.rate;
    let loadNote = `load ${rate} requests/s`;
    if (opts.capacityShare) {
      await traffic.capacity(16, 5_000);
      const capacity = await traffic.capacity(16, 10_000);
      rate = Math.max(1, Math.min(opts.rate, Math.floor(capacity * opts.capacityShare)));
      loadNote = `load ${rate} requests/s: ${Math.round(opts.capacityShare * 100)}% of the ${capacity.toFixed(0)}/s the system carried here (closed loop, 16 clients), at most ${opts.rate}/s`;
    }
    log(loadNote);
    traffic.start(rate);
    // Every 5 s: what the load got in those 5 s, so a run that goes wrong shows when.
    let seen = 0;
    const lag = monitorEventLoopDelay({ resolution: 20 });
    lag.enable();
    progress = setInterval(() => {
      const recent = traffic.outcomes.slice(seen);
      seen = traffic.outcomes.length;
      const ok = recent.filter((o) => o.status >= 200 && o.status < 300).length;
      log(
        `load: ${recent.length} answered (${ok} 2xx; ${statusList(failures(recent))}), ${traffic.outstanding} outstanding; this process's event loop lag p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms`,
      );
      lag.reset();
    }, 5_000);
    const phases: Phase[] = [];
    for (const fault of opts.faults ?? FAULTS) {
      const from = Date.now();
      await sleep(opts.steadyMs);
      const faultAt = Date.now();
      log(`${fault}: injecting`);
      const notes = await inject(cluster, fault, opts);
      log(`${fault}: healed; ${notes.join("; ")}`);
      await sleep(opts.afterMs);
      const gone = exited(cluster);
      if (gone.length) notes.push(`processes exited: ${gone.join(", ")}`);
      phases.push({ fault, from, faultAt, to: Date.now(), notes });
    }
    await traffic.stop();
    clearInterval(progress);
    log("load stopped; waiting for the event path to catch up");
    // Everything acknowledged, all phases together, settled once; then per phase as it stands.
    const ids = (kind: string, p?: Phase) =>
      traffic.outcomes
        .filter((o) => o.kind === kind && o.id && (!p || (o.at >= p.from && o.at < p.to)))
        .map((o) => o.id!);
    await ledger.settle({
      tenant: TENANT,
      pickJobs: ids("create-pickjob"),
      categories: ids("create-category"),
    });
    const rows: FaultRow[] = [];
    for (const p of phases) {
      const stray = unanswered(traffic.outcomes, p);
      if (stray) p.notes.push(stray);
      const counts = await ledger.count({
        tenant: TENANT,
        pickJobs: ids("create-pickjob", p),
        categories: ids("create-category", p),
      });
      rows.push({
        fault: p.fault,
        rate,
        sent: traffic.outcomes.filter((o) => o.at >= p.from && o.at < p.to).length,
        failed: failures(traffic.outcomes, p.from, p.to),
        recoverMs: recoverMs(traffic.outcomes, p),
        notes: p.notes,
        ...counts,
      });
    }
    return rows;
  } finally {
    clearInterval(progress);
    await ledger.close().catch(() => {});
    if (!given) await cluster.close();
    await hooks.close();
  }
}

/** Violations of the promises in a chaos table (empty: every promise kept). */
export function violations(rows: FaultRow[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    // Requests in flight may fail with 503 or 504; no 500, no connection dropped, none unanswered.
    const bad = Object.keys(r.failed).filter((s) => s !== "503" && s !== "504");
    if (bad.length) out.push(`${r.fault}: answered ${bad.join(", ")}`);
    for (const k of ["lostWrites", "auditLost", "auditDoubled", "webhooksLost"] as const)
      if (r[k] > 0) out.push(`${r.fault}: ${k} ${r[k]}`);
    for (const n of r.notes)
      if (/NOT ready|processes restarted|processes exited/.test(n)) out.push(`${r.fault}: ${n}`);
  }
  return out;
}

if (import.meta.main) {
  const short = process.argv.includes("--short");
  // --fault NAME (repeatable): only those faults, in the order given.
  const faults = process.argv.flatMap((a, i) => (a === "--fault" ? [process.argv[i + 1] as FaultName] : []));
  const unknown = faults.filter((f) => !FAULTS.includes(f));
  if (unknown.length) throw new Error(`unknown fault ${unknown.join(", ")}: one of ${FAULTS.join(", ")}`);
  // --rate N: exactly N requests per second (no capacity measurement).
  const rateArg = process.argv.indexOf("--rate");
  const rate = rateArg > 0 ? Number(process.argv[rateArg + 1]) : undefined;
  const { capacityShare, ...preset } = short ? SHORT : FULL;
  const opts: ChaosOptions = {
    ...preset,
    ...(rate ? { rate } : capacityShare ? { capacityShare } : {}),
    ...(faults.length ? { faults } : {}),
    log: (m) => console.log(`[chaos] ${m}`),
  };
  const rows = await runChaos(opts);
  console.log(`\n${chaosTable(rows)}\n`);
  for (const r of rows) for (const n of r.notes) console.log(`${r.fault}: ${n}`);
  const bad = violations(rows);
  if (bad.length) {
    console.error(`\nbroken promises:\n  ${bad.join("\n  ")}`);
    process.exit(1);
  }
  process.exit(0);
}
