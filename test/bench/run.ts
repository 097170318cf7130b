/**
 * `npm run bench`: how much the system (gateway -> Connect RPC -> catalog / picking service ->
 * MikroORM -> Postgres) costs per REST call, against a bare baseline (fastify + pg doing the same
 * queries; see baseline.ts) on the same Postgres.
 *
 * For every scenario (scenarios.ts): seed each target (over HTTP; the pick jobs in SQL, see
 * pickjob-seed.ts), warm each up (not measured), then BENCH_ROUNDS interleaved rounds of "baseline,
 * system" with autocannon at BENCH_CONNECTIONS for BENCH_DURATION seconds each, so slow drift on a
 * shared machine hits both alike; each metric is the median over the rounds. Prints a table and
 * writes the figures to test/bench/results/latest.json. View scenarios (graphql-view, rest-view) run
 * the same way, per view instead of per request (load.ts); a scenario naming another in
 * `comparedWith` is also compared with it, system against system, under the table.
 *
 * Environment (all optional): BENCH_DURATION (s, 10), BENCH_WARMUP (s, 2), BENCH_ROUNDS (2),
 * BENCH_CONNECTIONS (10), BENCH_SEED (1000), BENCH_DB_POOL (10), BENCH_LOADGEN (worker|inline),
 * BENCH_SCENARIOS (comma-separated names; `mixed` for the mixed scenario), BENCH_PICKJOBS (pick jobs
 * the pick job scenarios run over, seeded in SQL: 100000), BENCH_MIXED_START / _STEP / _MAX /
 * _STEP_SECONDS / _WARMUP (the mixed scenario's rates: 500, 250, 5000 req/s; 10 s, 3 s),
 * BENCH_MIXED_BASELINE (run the mixed scenario against the baseline too: true),
 * BENCH_NODE_ARGS (space-separated options for every service's node, e.g. `--max-semi-space-size=32`;
 * the services also inherit this process's environment, so a service setting such as
 * CONSUMER_GATHER_MS set here reaches them all), DATABASE_URL (else 127.0.0.1:5432, else embedded).
 *
 * The fan-out scenario (fanout.ts) measures one write on the system only, with every event consumer
 * running and with only audit's (the other consuming services restarted with EVENT_CONSUMERS=off),
 * runs alternating; it reports each mode's CPU per request and how much more all consumers cost.
 *
 * Then the mixed scenario (mixed.ts): one tenant's reads, searches and writes open-loop at a fixed
 * rate, stepped up, against the baseline and then the system; it reports the highest rate each
 * held with p99 < 50 ms and no errors, and their ratio.
 *
 * `npm run bench -- --scale` (or BENCH_SCALE=1) measures only the pick job search, over a table grown
 * through BENCH_SCALE_SIZES (10000,1000000): the page time must stay flat (see runScale).
 *
 * `npm run bench -- --ablation` (or BENCH_ABLATION=1) measures only what each layer of GET and POST
 * pick job costs, each turned off in turn (ablation.ts); results/ablation.json.
 *
 * `npm run bench -- --relay` (or BENCH_RELAY=1) measures only the outbox relay's CPU per event, its fast
 * path against the claiming relay it replaced, at BENCH_RELAY_RATES (relay-cost.ts).
 *
 * `npm run bench -- --rpc-retention` (or BENCH_RPC_RETENTION=1) measures only what one RPC call
 * leaves to the calling process's young-generation GC, Node's HTTP/2 client against the kit's
 * (rpc-retention.ts; no database, no NATS); results/rpc-retention.json.
 *
 * `npm run bench -- --profile` (or BENCH_PROFILE=1) also writes a CPU profile per process under
 * test/bench/results/profiles/<time>/: each service's whole run (`--cpu-prof`), and the gateway's
 * (this process) during the last system round of each scenario; then prints the top self-time
 * functions of each (profile.ts). Profile one scenario at a time (BENCH_SCENARIOS) to attribute the
 * services' time to it.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { env, loadConfig } from "@fop/kit/config";
import { findOrStartNats, findOrStartPostgres, infraConfig } from "@fop/kit/dev/infra";
import { otelConfig, startTracing } from "@fop/kit/otel";
import { runAblation } from "./ablation.ts";
import { BASELINE_TENANT, startBaseline } from "./baseline.ts";
import type { CpuProbe } from "./cpu.ts";
import { type EventLatency, measureEventLatency } from "./event-latency.ts";
import { runFanout } from "./fanout.ts";
import { describeLoad, type LoadJob, type LoadStats, measureLoad, runLoad } from "./load.ts";
import { type MixedResult, runMixed } from "./mixed.ts";
import { growPickJobs, seedPickJobs } from "./pickjob-seed.ts";
import { InProcessProfiler, profileTables } from "./profile.ts";
import { runRelayCost } from "./relay-cost.ts";
import {
  compareScenarios,
  type FanoutSummary,
  formatComparisons,
  formatFanout,
  formatTable,
  type ScenarioSummary,
  summariseScenario,
  summariseTarget,
  writeResults,
} from "./report.ts";
import type { Target, TargetName } from "./requests.ts";
import { formatRetention, runRpcRetention } from "./rpc-retention.ts";
import { type AnyScenario, type ComparisonScenario, isFanout, scenarios } from "./scenarios.ts";
import { startBenchSystem } from "./system.ts";

const benchConfig = {
  BENCH_DURATION: env.int("seconds of each measured run", 10, 1, 3600),
  BENCH_WARMUP: env.int("seconds of warm-up per scenario and target, not measured (0: none)", 2, 0, 600),
  BENCH_ROUNDS: env.int("measured rounds per scenario, each running the baseline then the system", 2, 1, 100),
  BENCH_CONNECTIONS: env.int("concurrent connections of the load generator", 10, 1, 10_000),
  BENCH_SEED: env.int("entities each scenario's seed creates per target", 1000, 1, 1_000_000),
  BENCH_PICKJOBS: env.int("pick jobs seeded (in SQL) per target", 100_000, 1, 10_000_000),
  BENCH_DB_POOL: env.int("database connections of each service, and of each baseline pool", 10, 1, 200),
  BENCH_LOADGEN: env.oneOf(["worker", "inline"], "where autocannon runs (see load.ts)", "worker"),
  BENCH_SCENARIOS: env.optionalString("comma-separated scenario names to run (default: all)"),
  BENCH_EVENT_WRITES: env.int("writes of the event-latency measurement (0: skip it)", 1000, 0),
  BENCH_EVENT_CONCURRENCY: env.int("concurrent writers of the event-latency measurement", 4, 1, 100),
  BENCH_MIXED_START: env.int("mixed scenario: first rate (req/s)", 500, 1),
  BENCH_MIXED_STEP: env.int("mixed scenario: rate added per step (req/s)", 250, 1),
  BENCH_MIXED_MAX: env.int("mixed scenario: highest rate tried (req/s)", 5000, 1),
  BENCH_MIXED_STEP_SECONDS: env.int("mixed scenario: seconds per step", 10, 1, 3600),
  BENCH_MIXED_WARMUP: env.int("mixed scenario: warm-up seconds at the first rate", 3, 0, 600),
  BENCH_MIXED_BASELINE: env.bool("mixed scenario: run it against the baseline too (before the system)", true),
  BENCH_RELAY_RATES: env.string(
    "--relay: events per second the writer commits, one measurement each",
    "600,1200",
  ),
  BENCH_RPC_CALLS: env.int("--rpc-retention: calls per client and round", 20_000, 100, 10_000_000),
  BENCH_NODE_ARGS: env.optionalString(
    "options for every service's node, space-separated (e.g. --max-semi-space-size=32)",
  ),
  BENCH_SCALE_SIZES: env.string("--scale: pick job counts the search is measured over", "10000,1000000"),
  ...infraConfig,
  ...otelConfig,
};
type BenchConfig = ReturnType<typeof loadConfig<typeof benchConfig>>;

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const RESULTS_FILE = path.join(import.meta.dirname, "results/latest.json");
const PROFILE =
  process.argv.includes("--profile") ||
  process.env.BENCH_PROFILE === "1" ||
  process.env.BENCH_PROFILE === "true";
/** `--scale`: only the pick job search, over growing tables (see {@link runScale}). */
const SCALE = process.argv.includes("--scale") || process.env.BENCH_SCALE === "1";
/** `--ablation`: what each layer costs, GET and POST pick job (ablation.ts). */
const ABLATION = process.argv.includes("--ablation") || process.env.BENCH_ABLATION === "1";
/** `--relay`: only the outbox relay's cost per event, fast path against claiming (relay-cost.ts). */
const RELAY = process.argv.includes("--relay") || process.env.BENCH_RELAY === "1";
/** `--rpc-retention`: only what an RPC call leaves to the young-generation GC (rpc-retention.ts). */
const RPC_RETENTION = process.argv.includes("--rpc-retention") || process.env.BENCH_RPC_RETENTION === "1";
const PROFILE_DIR = PROFILE
  ? path.join(import.meta.dirname, "results/profiles", new Date().toISOString().replace(/[:.]/g, "-"))
  : undefined;
/** The order of the runs within a round. */
const TARGETS: TargetName[] = ["baseline", "system"];

const log = (msg: string) => console.error(`[bench] ${msg}`);

/** Closers, run last-in first-out by {@link cleanup}. */
const closers: { name: string; close: () => Promise<void> }[] = [];

async function cleanup(): Promise<void> {
  for (let c = closers.pop(); c; c = closers.pop()) {
    try {
      await c.close();
    } catch (err) {
      log(`closing ${c.name} failed: ${(err as Error).stack ?? String(err)}`);
      process.exitCode = 1;
    }
  }
}

/** The mixed-load scenario's name (mixed.ts; not a baseline comparison, so not in scenarios.ts). */
const MIXED = "mixed";

/** The selected comparison scenarios, and whether the mixed one runs (all of them by default). */
function selectScenarios(names: string | undefined): { selected: AnyScenario[]; mixed: boolean } {
  if (!names) return { selected: scenarios, mixed: true };
  const wanted = names
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = wanted.filter((n) => n !== MIXED && !scenarios.some((s) => s.name === n));
  if (unknown.length)
    throw new Error(
      `unknown scenario(s) ${unknown.join(", ")}; known: ${[...scenarios.map((s) => s.name), MIXED].join(", ")}`,
    );
  return { selected: scenarios.filter((s) => wanted.includes(s.name)), mixed: wanted.includes(MIXED) };
}

async function runScenario(
  scenario: ComparisonScenario,
  targets: Record<TargetName, Target>,
  cfg: BenchConfig,
  cpu: (t: TargetName) => CpuProbe,
): Promise<ScenarioSummary> {
  const seeds: Partial<Record<TargetName, unknown>> = {};
  for (const t of TARGETS) {
    if (!scenario.seed) break;
    const started = Date.now();
    seeds[t] = await scenario.seed(targets[t], { size: cfg.BENCH_SEED, pickJobs: cfg.BENCH_PICKJOBS });
    log(`${scenario.name}: seeded ${t} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const job = (t: TargetName, durationSec: number): LoadJob => ({
    scenario: scenario.name,
    target: targets[t],
    seed: seeds[t],
    runId: randomBytes(4).toString("hex"),
    connections: cfg.BENCH_CONNECTIONS,
    durationSec,
  });

  if (cfg.BENCH_WARMUP > 0) {
    for (const t of TARGETS) {
      const s = await runLoad(job(t, cfg.BENCH_WARMUP), cfg.BENCH_LOADGEN);
      // A target that fails its warm-up would only measure how fast it fails.
      if (s.completed === 0 || s.non2xx > 0 || s.errors > 0)
        throw new Error(`${scenario.name}: warm-up of ${t} failed: ${describeLoad(s)}`);
      log(`${scenario.name}: warm-up ${t}: ${describeLoad(s)}`);
    }
  }

  const rounds: Record<TargetName, LoadStats[]> = { baseline: [], system: [] };
  for (let r = 1; r <= cfg.BENCH_ROUNDS; r++) {
    for (const t of TARGETS) {
      // The gateway shares this process with the baseline: profile it during the system's last round.
      const profiler =
        PROFILE_DIR && t === "system" && r === cfg.BENCH_ROUNDS
          ? new InProcessProfiler(path.join(PROFILE_DIR, `gateway-${scenario.name}.cpuprofile`))
          : undefined;
      await profiler?.start();
      const s = await measureLoad(job(t, cfg.BENCH_DURATION), cfg.BENCH_LOADGEN, cpu(t)).finally(() =>
        profiler?.stop(),
      );
      rounds[t].push(s);
      log(`${scenario.name}: round ${r}/${cfg.BENCH_ROUNDS} ${t}: ${describeLoad(s)}`);
    }
  }
  return summariseScenario(scenario.name, scenario.description, rounds);
}

/**
 * `npm run bench -- --scale`: the pick job search (search-pickjobs) on the system over each of
 * BENCH_SCALE_SIZES jobs — the same table grown between measurements — to show that a page costs
 * the same at any size (index-backed keyset paging): p50 at the largest <= 1.3x p50 at the smallest.
 * Not part of CI (growing to 1M takes minutes). Writes results/scale.json.
 */
async function runScale(cfg: BenchConfig, target: Target, cpu: CpuProbe): Promise<void> {
  const sizes = cfg.BENCH_SCALE_SIZES.split(",")
    .map((x) => Number(x.trim()))
    .filter((n) => Number.isSafeInteger(n) && n > 0)
    .sort((a, b) => a - b);
  if (sizes.length < 2) throw new Error("BENCH_SCALE_SIZES: at least two pick job counts");
  const scenario = scenarios.find((sc) => sc.name === "search-pickjobs")!;
  const seed = await seedPickJobs(target, sizes[0]!);
  const rows: { jobs: number; summary: ReturnType<typeof summariseScenario>["targets"]["system"] }[] = [];
  for (const jobs of sizes) {
    await growPickJobs(target, jobs);
    const job = (durationSec: number): LoadJob => ({
      scenario: scenario.name,
      target,
      seed,
      runId: randomBytes(4).toString("hex"),
      connections: cfg.BENCH_CONNECTIONS,
      durationSec,
    });
    if (cfg.BENCH_WARMUP > 0) await runLoad(job(cfg.BENCH_WARMUP), cfg.BENCH_LOADGEN);
    const rounds: LoadStats[] = [];
    for (let r = 1; r <= cfg.BENCH_ROUNDS; r++) {
      const st = await measureLoad(job(cfg.BENCH_DURATION), cfg.BENCH_LOADGEN, cpu);
      rounds.push(st);
      log(`scale: ${jobs} jobs, round ${r}/${cfg.BENCH_ROUNDS}: ${describeLoad(st)}`);
    }
    rows.push({ jobs, summary: summariseTarget(rounds) });
  }
  const first = rows[0]!.summary;
  const last = rows[rows.length - 1]!.summary;
  console.log(
    `\nsearch-pickjobs over growing tables (system; ${cfg.BENCH_ROUNDS} x ${cfg.BENCH_DURATION} s, medians)\n`,
  );
  console.log("jobs        req/s   p50 ms   p99 ms   p50 vs smallest");
  for (const r of rows) {
    console.log(
      `${String(r.jobs).padEnd(10)}  ${String(Math.round(r.summary.reqPerSec)).padStart(5)}  ` +
        `${r.summary.p50Ms.toFixed(2).padStart(7)}  ${r.summary.p99Ms.toFixed(2).padStart(7)}  ` +
        `${(r.summary.p50Ms / first.p50Ms).toFixed(2).padStart(15)}x`,
    );
  }
  const ratio = last.p50Ms / first.p50Ms;
  console.log(
    `\np50 at ${rows[rows.length - 1]!.jobs} / p50 at ${rows[0]!.jobs}: ${ratio.toFixed(2)}x (flat: <= 1.3x) ${ratio <= 1.3 ? "ok" : "NOT flat"}`,
  );
  writeResults(path.join(import.meta.dirname, "results/scale.json"), {
    finished: new Date().toISOString(),
    settings: {
      rounds: cfg.BENCH_ROUNDS,
      durationSec: cfg.BENCH_DURATION,
      connections: cfg.BENCH_CONNECTIONS,
    },
    sizes: rows,
    p50Ratio: ratio,
  });
}

async function main(): Promise<void> {
  const cfg = loadConfig(benchConfig);
  const { selected, mixed } = selectScenarios(cfg.BENCH_SCENARIOS);

  // The gateway creates spans for every request: a real tracer provider, exporting nowhere. (With
  // --ablation the gateway is a process of its own, tracing as deployed.)
  if (!ABLATION) {
    const tracing = startTracing({ serviceName: "fop-bench", env: cfg });
    closers.push({ name: "tracing", close: tracing.shutdown });
  }

  if (RPC_RETENTION) {
    const rows = await runRpcRetention(
      { calls: cfg.BENCH_RPC_CALLS, concurrency: cfg.BENCH_CONNECTIONS, rounds: cfg.BENCH_ROUNDS },
      log,
    );
    console.log(formatRetention(rows));
    writeResults(path.join(import.meta.dirname, "results/rpc-retention.json"), rows);
    return;
  }

  const pg = await findOrStartPostgres({
    database: "fop_bench",
    dataDir: path.join(REPO_ROOT, ".data/bench-postgres"),
    log,
    env: cfg,
  });
  closers.push({ name: "postgres", close: pg.stop });
  log(`postgres: ${pg.source}`);

  const nats = await findOrStartNats({ dataDir: path.join(REPO_ROOT, ".data/bench-nats"), log, env: cfg });
  closers.push({ name: "nats", close: nats.stop });
  if (RELAY) {
    const rows = await runRelayCost(
      { adminUrl: pg.url, natsUrl: nats.url },
      {
        rates: cfg.BENCH_RELAY_RATES.split(",").map((r) => Number(r.trim())),
        seconds: cfg.BENCH_DURATION,
        rounds: cfg.BENCH_ROUNDS,
      },
      log,
    );
    writeResults(path.join(import.meta.dirname, "results/relay.json"), rows);
    return;
  }
  if (ABLATION) {
    await runAblation(
      {
        durationSec: cfg.BENCH_DURATION,
        warmupSec: cfg.BENCH_WARMUP,
        connections: cfg.BENCH_CONNECTIONS,
        pickJobs: cfg.BENCH_PICKJOBS,
        seedSize: cfg.BENCH_SEED,
        dbPoolMax: cfg.BENCH_DB_POOL,
        loadGenerator: cfg.BENCH_LOADGEN,
      },
      { adminUrl: pg.url, natsUrl: nats.url },
      closers,
      path.join(import.meta.dirname, "results/ablation.json"),
      log,
    );
    return;
  }
  if (PROFILE_DIR) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    log(`profiling: ${path.relative(process.cwd(), PROFILE_DIR)}`);
  }
  const system = await startBenchSystem(
    { adminUrl: pg.url, natsUrl: nats.url },
    {
      dbPoolMax: cfg.BENCH_DB_POOL,
      profileDir: PROFILE_DIR,
      nodeArgs: cfg.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? [],
    },
  );
  closers.push({ name: "system", close: system.close });
  const baseline = await startBaseline(pg.url, { dbPoolMax: cfg.BENCH_DB_POOL });
  closers.push({ name: "baseline", close: baseline.close });
  const token = await system.token(BASELINE_TENANT, ["ADMIN"]);
  const targets: Record<TargetName, Target> = {
    baseline: {
      name: "baseline",
      baseUrl: baseline.baseUrl,
      headers: { accept: "application/json" },
      databaseUrl: baseline.databaseUrl,
    },
    system: {
      name: "system",
      baseUrl: system.baseUrl,
      databaseUrl: system.databaseUrl,
      headers: { accept: "application/json", authorization: `Bearer ${token}` },
    },
  };
  log(`system ${system.baseUrl}, baseline ${baseline.baseUrl}; load generator: ${cfg.BENCH_LOADGEN}`);

  const started = new Date();
  const summaries: ScenarioSummary[] = [];
  // CPU per request: the gateway and the baseline are this process's main thread (one of them idle
  // in each run); the services are their own processes.
  const mainThread = `${process.pid}/task/${process.pid}`;
  // Postgres (every backend) and the NATS server serve both; they are counted with each.
  const shared = { postgres: "comm:postgres", nats: "comm:nats-server" };
  // Read at each use: the fan-out scenario restarts services (new pids).
  const cpu = (t: TargetName): CpuProbe =>
    t === "baseline"
      ? { targets: { baseline: mainThread, postgres: shared.postgres } }
      : {
          targets: {
            gateway: mainThread,
            ...shared,
            ...Object.fromEntries(
              Object.entries(system.system.services).flatMap(([name, svc]) =>
                svc.pid ? [[name, String(svc.pid)]] : [],
              ),
            ),
          },
        };
  if (SCALE) {
    await runScale(cfg, targets.system, cpu("system"));
    return;
  }
  let fanout: FanoutSummary | undefined;
  for (const scenario of selected) {
    if (!isFanout(scenario)) {
      summaries.push(await runScenario(scenario, targets, cfg, cpu));
      continue;
    }
    fanout = await runFanout(scenario, system, {
      target: targets.system,
      rounds: cfg.BENCH_ROUNDS,
      durationSec: cfg.BENCH_DURATION,
      warmupSec: cfg.BENCH_WARMUP,
      connections: cfg.BENCH_CONNECTIONS,
      loadGenerator: cfg.BENCH_LOADGEN,
      cpu: () => cpu("system"),
      log,
    });
  }

  console.log(
    `\n${cfg.BENCH_ROUNDS} round(s) x ${cfg.BENCH_DURATION} s, ${cfg.BENCH_CONNECTIONS} connections, ` +
      `medians${summaries.length ? "; ratio = system / baseline" : ""}\n`,
  );
  if (summaries.length) console.log(formatTable(summaries));
  if (fanout) console.log(`${summaries.length ? "\n" : ""}${formatFanout(fanout)}`);
  const comparisons = compareScenarios(
    summaries,
    selected.flatMap((sc) => ("comparedWith" in sc && sc.comparedWith ? [[sc.name, sc.comparedWith]] : [])),
  );
  if (comparisons.length) console.log(`\n${formatComparisons(summaries, comparisons)}`);
  const mixedResults: Partial<Record<TargetName, MixedResult>> = {};
  if (mixed) {
    log(
      `mixed: one tenant, 70% GET pick job / 20% search / 10% create + START, open loop from ` +
        `${cfg.BENCH_MIXED_START} req/s in steps of ${cfg.BENCH_MIXED_STEP} (${cfg.BENCH_MIXED_STEP_SECONDS} s each); ` +
        `the baseline, then the system`,
    );
    for (const t of cfg.BENCH_MIXED_BASELINE ? TARGETS : (["system"] as const)) {
      const seed = await seedPickJobs(targets[t], cfg.BENCH_PICKJOBS);
      mixedResults[t] = await runMixed(
        { baseUrl: targets[t].baseUrl, headers: targets[t].headers, seed, maxInFlight: 1000 },
        {
          startRate: cfg.BENCH_MIXED_START,
          stepRate: cfg.BENCH_MIXED_STEP,
          maxRate: cfg.BENCH_MIXED_MAX,
          stepSec: cfg.BENCH_MIXED_STEP_SECONDS,
          warmupSec: cfg.BENCH_MIXED_WARMUP,
          p99LimitMs: 50,
          // The load generator is a worker thread of this process: "bench process" is it plus the
          // gateway (or the baseline) on the main thread.
          cpu: { targets: { ...cpu(t).targets, "bench process": String(process.pid) } },
        },
        (msg) => log(`${t} ${msg}`),
      );
    }
    console.log("\nmixed load (open loop, one tenant; highest rate held with p99 < 50 ms and no errors):");
    for (const [t, r] of Object.entries(mixedResults)) {
      const last = r.steps.find((st) => st.rate === r.heldRate);
      console.log(
        `  ${t.padEnd(8)} held ${r.heldRate} req/s` +
          (last ? ` (at that rate: p50 ${last.p50Ms} ms, p99 ${last.p99Ms} ms)` : ""),
      );
    }
    const { baseline: mb, system: ms } = mixedResults;
    if (mb && ms && mb.heldRate > 0) {
      console.log(`  ratio    ${(ms.heldRate / mb.heldRate).toFixed(2)}x (system / baseline)`);
    }
  }
  let eventLatency: EventLatency | undefined;
  if (cfg.BENCH_EVENT_WRITES > 0) {
    log(`event latency: ${cfg.BENCH_EVENT_WRITES} writes, ${cfg.BENCH_EVENT_CONCURRENCY} at a time`);
    eventLatency = await measureEventLatency(system, cfg.BENCH_EVENT_WRITES, cfg.BENCH_EVENT_CONCURRENCY);
    console.log(
      `\nevent latency (write -> audit record), ${eventLatency.writes} writes x ${eventLatency.concurrency} concurrent: ` +
        `p50 ${eventLatency.p50Ms} ms, p99 ${eventLatency.p99Ms} ms, max ${eventLatency.maxMs} ms ` +
        `(${Math.round(eventLatency.writesPerSec)} writes/s)`,
    );
  }
  writeResults(RESULTS_FILE, {
    started: started.toISOString(),
    finished: new Date().toISOString(),
    settings: {
      durationSec: cfg.BENCH_DURATION,
      warmupSec: cfg.BENCH_WARMUP,
      rounds: cfg.BENCH_ROUNDS,
      connections: cfg.BENCH_CONNECTIONS,
      seedSize: cfg.BENCH_SEED,
      pickJobs: cfg.BENCH_PICKJOBS,
      dbPoolMax: cfg.BENCH_DB_POOL,
      loadGenerator: cfg.BENCH_LOADGEN,
    },
    machine: { node: process.version, platform: process.platform, cpus: availableParallelism() },
    scenarios: summaries,
    comparisons,
    fanout,
    mixed: mixedResults,
    eventLatency,
  });
  console.log(`\nwritten to ${path.relative(process.cwd(), RESULTS_FILE)}`);
}

process.once("SIGINT", () => {
  log("interrupted: cleaning up");
  void cleanup().finally(() => process.exit(130));
});

try {
  await main();
} catch (err) {
  log(`failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
// The services write their profiles as they exit (cleanup): only now are they all there.
if (PROFILE_DIR) {
  const tables = profileTables(PROFILE_DIR);
  writeFileSync(path.join(PROFILE_DIR, "top-self-time.md"), tables);
  console.log(
    `\ntop self-time functions per process (${path.relative(process.cwd(), PROFILE_DIR)}):\n\n${tables}`,
  );
}
// Everything is closed: the process should now exit by itself. If a handle leaks, say which.
setTimeout(() => {
  log(`still running 5 s after cleanup; open resources: ${process.getActiveResourcesInfo().join(", ")}`);
  process.exit(process.exitCode ?? 1);
}, 5000).unref();
