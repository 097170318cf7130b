/**
 * `npm run bench -- --ablation` (or BENCH_ABLATION=1): what each layer of a request's path costs,
 * in CPU per request per process, for GET and POST pick job (issue 26).
 *
 * The system runs as deployed: every service and the gateway a process of its own (the gateway a
 * child process here, not this one, so that its environment can differ per configuration),
 * tracing on with the deployed sampling (parentbased_always_on) and spans exported over OTLP/HTTP
 * to a collector (a sink in this process that reads and discards them), the access log at info
 * (to /dev/null), the rate limit on (with a limit no run reaches: its bucket is taken every request,
 * nothing is refused). Each configuration restarts every service and the gateway with its
 * environment, then runs get-pickjob and create-pickjob (scenarios.ts; warm-up, then
 * BENCH_ABLATION_ROUNDS x BENCH_DURATION s, closed loop) and reads each process's CPU (cpu.ts).
 * The configurations: "all on", then each layer off in turn ({@link LAYERS}), then "all on" again
 * (the drift check: the machine's speed moves during a run; the delta is taken against the mean of
 * the two "all on" runs).
 *
 * A layer with a setting of its own is turned off by it (tracing: OTEL_SDK_DISABLED; its export
 * alone: OTEL_TRACES_EXPORTER=none; the access log: LOG_LEVEL=warn; the rate limit:
 * RATE_LIMIT_ENABLED=false), the others by the benchmark-only FOP_ABLATE (@fop/kit/ablation, which
 * needs FOP_BENCH=1 and says what each switch does instead).
 *
 * Environment (besides run.ts' BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_PICKJOBS,
 * BENCH_DB_POOL, BENCH_LOADGEN): BENCH_ABLATION_ROUNDS (1), BENCH_ABLATION_LAYERS (comma-separated
 * layer names, default all). Prints a table per scenario and writes results/ablation.json.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism } from "node:os";
import path from "node:path";
import { ABLATABLE_LAYERS } from "@fop/kit/ablation";
import { env, loadConfig } from "@fop/kit/config";
import type { ServiceName } from "../support/boot.ts";
import { BASELINE_TENANT } from "./baseline.ts";
import type { CpuProbe } from "./cpu.ts";
import {
  describeLoad,
  type LoadGenMode,
  type LoadJob,
  type LoadStats,
  measureLoad,
  runLoad,
} from "./load.ts";
import { summariseTarget, type TargetSummary, writeResults } from "./report.ts";
import type { Target } from "./requests.ts";
import { findScenario, type Scenario } from "./scenarios.ts";
import { startBenchSystem } from "./system.ts";

/** The scenarios of the ablation: a read and a write (scenarios.ts). */
export const ABLATION_SCENARIOS = ["get-pickjob", "create-pickjob"] as const;

/** One configuration: the environment on top of the deployed one, of the gateway and of every service. */
export interface Configuration {
  name: string;
  /** What is off and how. */
  what: string;
  gateway?: Record<string, string>;
  services?: Record<string, string>;
}

/** Both the gateway and the services. */
const everywhere = (vars: Record<string, string>) => ({ gateway: vars, services: vars });

/** Each layer, turned off in turn. */
export const LAYERS: Configuration[] = [
  {
    name: "tracing",
    what: "OTEL_SDK_DISABLED=true in every process: no SDK, no spans, no pg instrumentation, no trace context (the API's no-op calls remain)",
    ...everywhere({ OTEL_SDK_DISABLED: "true" }),
  },
  {
    name: "trace-export",
    what: "OTEL_TRACES_EXPORTER=none in every process: spans made and sampled as deployed, none exported",
    ...everywhere({ OTEL_TRACES_EXPORTER: "none" }),
  },
  {
    name: "access-log",
    what: "the gateway's LOG_LEVEL=warn: no access line (the hook returns at once below info); fastify's per-request child logger remains",
    gateway: { LOG_LEVEL: "warn" },
  },
  {
    name: "validation",
    what: `FOP_ABLATE=validation: ${ABLATABLE_LAYERS.validation}`,
    gateway: { FOP_ABLATE: "validation" },
  },
  {
    name: "serialization",
    what: `FOP_ABLATE=serialization: ${ABLATABLE_LAYERS.serialization} (so for both routes here: nothing changes, the row shows the noise)`,
    gateway: { FOP_ABLATE: "serialization" },
  },
  { name: "auth", what: `FOP_ABLATE=auth: ${ABLATABLE_LAYERS.auth}`, gateway: { FOP_ABLATE: "auth" } },
  {
    name: "rate-limit",
    what: "RATE_LIMIT_ENABLED=false: no token bucket taken per request",
    gateway: { RATE_LIMIT_ENABLED: "false" },
  },
  {
    name: "rpc-http2",
    what: `FOP_ABLATE=rpc-http2 (HTTP/1.1 keep-alive instead): ${ABLATABLE_LAYERS["rpc-http2"]}`,
    ...everywhere({ FOP_ABLATE: "rpc-http2" }),
  },
  {
    name: "rpc-protobuf",
    what: `FOP_ABLATE=rpc-protobuf (Connect JSON instead): ${ABLATABLE_LAYERS["rpc-protobuf"]}`,
    ...everywhere({ FOP_ABLATE: "rpc-protobuf" }),
  },
];

/**
 * The deployed environment (deploy/k8s): every variable a configuration changes is named here, so
 * that each restart sets all of them (a restart keeps what the last one set).
 */
export function deployed(collectorUrl: string): Required<Omit<Configuration, "what">> {
  const both = {
    FOP_BENCH: "1",
    FOP_ABLATE: "",
    OTEL_SDK_DISABLED: "",
    OTEL_TRACES_SAMPLER: "",
    OTEL_TRACES_SAMPLER_ARG: "",
    OTEL_TRACES_EXPORTER: "",
    OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
    OTEL_EXPORTER_OTLP_PROTOCOL: "",
  };
  return {
    name: "all on",
    gateway: {
      ...both,
      LOG_LEVEL: "info",
      RATE_LIMIT_ENABLED: "true",
      // Taken every request, never refusing one: the bench is one tenant at thousands of requests
      // per second (deployed: 1000/s, burst 2000, per tenant and replica).
      RATE_LIMIT_PER_SECOND: "10000000",
      RATE_LIMIT_BURST: "10000000",
    },
    services: both,
  };
}

/** The environment of `c` on top of the deployed one; a variable the deployed one lacks is an error. */
export function environmentOf(
  c: Configuration,
  base: ReturnType<typeof deployed>,
): { gateway: Record<string, string>; services: Record<string, string> } {
  const over = (side: "gateway" | "services") => {
    const extra = Object.keys(c[side] ?? {}).filter((k) => !(k in base[side]));
    if (extra.length)
      throw new Error(`${c.name}: ${extra.join(", ")} not in the deployed ${side} environment (deployed())`);
    return { ...base[side], ...c[side] };
  };
  return { gateway: over("gateway"), services: over("services") };
}

/** The configurations of a run: all on, the selected layers off in turn, all on again. */
export function configurations(selected: string | undefined): Configuration[] {
  const names = selected
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names?.filter((n) => !LAYERS.some((l) => l.name === n)) ?? [];
  if (unknown.length)
    throw new Error(
      `BENCH_ABLATION_LAYERS: unknown layer(s) ${unknown.join(", ")}; known: ${LAYERS.map((l) => l.name).join(", ")}`,
    );
  const allOn = { name: "all on", what: "as deployed" };
  return [
    allOn,
    ...LAYERS.filter((l) => !names?.length || names.includes(l.name)),
    { ...allOn, name: "all on (again)" },
  ];
}

/**
 * An OTLP/HTTP trace receiver that reads every export and answers it (an empty
 * ExportTraceServiceResponse), keeping nothing but counts: the collector the processes export to.
 */
async function startCollectorSink() {
  const counts = { requests: 0, bytes: 0 };
  const server = http.createServer((req, res) => {
    req.on("data", (c: Buffer) => {
      counts.bytes += c.length;
    });
    req.on("end", () => {
      counts.requests++;
      res.writeHead(200, { "content-type": "application/x-protobuf", "content-length": 0 });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AblationSettings {
  durationSec: number;
  warmupSec: number;
  connections: number;
  pickJobs: number;
  seedSize: number;
  dbPoolMax: number;
  loadGenerator: LoadGenMode;
}

/** One configuration's figures. */
export interface ConfigurationResult {
  name: string;
  what: string;
  environment: { gateway: Record<string, string>; services: Record<string, string> };
  /** Seconds to restart every process with this environment. */
  restartSec: number;
  /** Per scenario: medians over the rounds, and the total CPU of the system's processes. */
  scenarios: Record<string, TargetSummary & { totalUsPerRequest: number }>;
  /** What reached the collector during the measured runs. */
  traceExports: { requests: number; bytes: number };
}

/** The CPU of the system's processes per request (every process measured). */
export const totalUs = (cpu: Record<string, number>) =>
  Object.values(cpu).reduce((sum, us) => sum + (Number.isFinite(us) ? us : 0), 0);

/**
 * Runs the ablation (see the module comment); `infra` is the Postgres (admin URL) and NATS to use,
 * `closers` gets what must be closed at the end.
 */
export async function runAblation(
  settings: AblationSettings,
  infra: { adminUrl: string; natsUrl: string },
  closers: { name: string; close: () => Promise<void> }[],
  resultsFile: string,
  log: (msg: string) => void,
): Promise<void> {
  const cfg = loadConfig({
    BENCH_ABLATION_ROUNDS: env.int("--ablation: measured rounds per configuration and scenario", 1, 1, 100),
    BENCH_ABLATION_LAYERS: env.optionalString(
      `--ablation: comma-separated layers to turn off in turn (default all: ${LAYERS.map((l) => l.name).join(", ")})`,
    ),
  });
  const plan = configurations(cfg.BENCH_ABLATION_LAYERS);
  const sink = await startCollectorSink();
  closers.push({ name: "collector sink", close: sink.close });
  const base = deployed(sink.url);
  const first = environmentOf(plan[0]!, base);
  const bench = await startBenchSystem(infra, {
    dbPoolMax: settings.dbPoolMax,
    gatewayChildProcess: { env: first.gateway },
    serviceEnv: first.services,
  });
  closers.push({ name: "system", close: bench.close });
  const system = bench.system;
  const gatewayProcess = system.gatewayProcess!;
  const target: Target = {
    name: "system",
    baseUrl: bench.baseUrl,
    databaseUrl: bench.databaseUrl,
    headers: { accept: "application/json", authorization: `Bearer ${await bench.token(BASELINE_TENANT)}` },
  };
  const scenarios = ABLATION_SCENARIOS.map((n) => findScenario(n) as Scenario<unknown>);
  const seeds: Record<string, unknown> = {};
  for (const sc of scenarios) {
    const started = Date.now();
    seeds[sc.name] = await sc.seed?.(target, { size: settings.seedSize, pickJobs: settings.pickJobs });
    log(`ablation: ${sc.name} seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const services = Object.keys(system.services) as ServiceName[];
  const probe = (): CpuProbe => ({
    targets: {
      gateway: String(gatewayProcess.pid),
      ...Object.fromEntries(services.map((s) => [s, String(system.services[s].pid)])),
      postgres: "comm:postgres",
      nats: "comm:nats-server",
    },
  });
  const job = (scenario: string, durationSec: number): LoadJob => ({
    scenario,
    target,
    seed: seeds[scenario],
    runId: randomBytes(4).toString("hex"),
    connections: settings.connections,
    durationSec,
  });

  const started = new Date();
  const results: ConfigurationResult[] = [];
  for (const c of plan) {
    const environment = environmentOf(c, base);
    // Every configuration starts from fresh processes (the first too: the boot's ran the seed).
    // Every service at once (the gateway is idle meanwhile), then the gateway, which is ready once
    // every service answers its health check.
    const t0 = Date.now();
    await Promise.all(services.map((s) => system.stopService(s)));
    await Promise.all(services.map((s) => system.restartService(s, environment.services)));
    await gatewayProcess.restart(environment.gateway);
    const restartSec = (Date.now() - t0) / 1000;
    log(`ablation: ${c.name} (${c.what}); restarted in ${restartSec.toFixed(1)} s`);
    const scenarioResults: ConfigurationResult["scenarios"] = {};
    const exportsBefore = { ...sink.counts };
    for (const sc of scenarios) {
      if (settings.warmupSec > 0) {
        const w = await runLoad(job(sc.name, settings.warmupSec), settings.loadGenerator);
        if (w.completed === 0 || w.non2xx > 0 || w.errors > 0)
          throw new Error(`${c.name}: warm-up of ${sc.name} failed: ${describeLoad(w)}`);
      }
      const rounds: LoadStats[] = [];
      for (let r = 1; r <= cfg.BENCH_ABLATION_ROUNDS; r++) {
        const s = await measureLoad(job(sc.name, settings.durationSec), settings.loadGenerator, probe());
        rounds.push(s);
        log(`ablation: ${c.name}: ${sc.name} round ${r}/${cfg.BENCH_ABLATION_ROUNDS}: ${describeLoad(s)}`);
      }
      const summary = summariseTarget(rounds);
      scenarioResults[sc.name] = { ...summary, totalUsPerRequest: totalUs(summary.cpuUsPerRequest) };
    }
    const traceExports = {
      requests: sink.counts.requests - exportsBefore.requests,
      bytes: sink.counts.bytes - exportsBefore.bytes,
    };
    log(
      `ablation: ${c.name}: ${traceExports.requests} trace exports (${(traceExports.bytes / 1e6).toFixed(1)} MB) reached the collector`,
    );
    results.push({
      name: c.name,
      what: c.what,
      environment,
      restartSec,
      scenarios: scenarioResults,
      traceExports,
    });
  }

  const settingsLine =
    `${cfg.BENCH_ABLATION_ROUNDS} x ${settings.durationSec} s per configuration and scenario (after ` +
    `${settings.warmupSec} s of warm-up), ${settings.connections} connections, closed loop; medians`;
  console.log(`\nablation: ${settingsLine}\n`);
  for (const sc of ABLATION_SCENARIOS) console.log(`${formatAblation(sc, results)}\n`);
  console.log("configurations:");
  for (const r of results) console.log(`  ${r.name}: ${r.what}`);
  writeResults(resultsFile, {
    started: started.toISOString(),
    finished: new Date().toISOString(),
    settings: { ...settings, rounds: cfg.BENCH_ABLATION_ROUNDS },
    machine: { node: process.version, platform: process.platform, cpus: availableParallelism() },
    configurations: results,
    deltas: Object.fromEntries(ABLATION_SCENARIOS.map((sc) => [sc, deltas(sc, results)])),
  });
  console.log(`\nwritten to ${path.relative(process.cwd(), resultsFile)}`);
}

/** Processes shown in the tables: the gateway, the services, Postgres, NATS (in this order). */
const ORDER = ["gateway", "catalog", "picking", "loadunits", "carriers", "returns", "audit", "notifications"];
/** A process is a column when it spent at least this much per request in some configuration. */
const SHOWN_US = 5;

/** The reference "all on": the mean of its runs (the first and, if run, the last). */
function reference(scenario: string, results: ConfigurationResult[]) {
  const runs = results.filter((r) => r.name.startsWith("all on")).map((r) => r.scenarios[scenario]!);
  const mean = (f: (s: (typeof runs)[number]) => number) => runs.reduce((a, s) => a + f(s), 0) / runs.length;
  const processes = [...new Set(runs.flatMap((s) => Object.keys(s.cpuUsPerRequest)))];
  return {
    reqPerSec: mean((s) => s.reqPerSec),
    totalUsPerRequest: mean((s) => s.totalUsPerRequest),
    cpuUsPerRequest: Object.fromEntries(processes.map((p) => [p, mean((s) => s.cpuUsPerRequest[p] ?? 0)])),
  };
}

/** Each configuration against the reference: CPU us per request per process and in total, and req/s. */
export function deltas(scenario: string, results: ConfigurationResult[]) {
  const ref = reference(scenario, results);
  return results.map((r) => {
    const s = r.scenarios[scenario]!;
    const processes = [...new Set([...Object.keys(s.cpuUsPerRequest), ...Object.keys(ref.cpuUsPerRequest)])];
    return {
      name: r.name,
      totalUsPerRequest: Math.round(s.totalUsPerRequest - ref.totalUsPerRequest),
      totalPercent:
        Math.round((1000 * (s.totalUsPerRequest - ref.totalUsPerRequest)) / ref.totalUsPerRequest) / 10,
      reqPerSecPercent: Math.round((1000 * (s.reqPerSec - ref.reqPerSec)) / ref.reqPerSec) / 10,
      cpuUsPerRequest: Object.fromEntries(
        processes.map((p) => [p, Math.round((s.cpuUsPerRequest[p] ?? 0) - (ref.cpuUsPerRequest[p] ?? 0))]),
      ),
    };
  });
}

const num = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");
const signed = (n: number) => (n > 0 ? `+${num(n)}` : n < 0 ? `-${num(-n)}` : "0");

/**
 * The scenario's table: a row per configuration with req/s, p50/p99, CPU us per request per
 * process and in total, and the total's delta against "all on"; then the deltas per process.
 */
export function formatAblation(scenario: string, results: ConfigurationResult[]): string {
  const all = [...new Set(results.flatMap((r) => Object.keys(r.scenarios[scenario]!.cpuUsPerRequest)))];
  const shown = all
    .filter((p) => results.some((r) => (r.scenarios[scenario]!.cpuUsPerRequest[p] ?? 0) >= SHOWN_US))
    .sort((a, b) => rank(a) - rank(b));
  const ds = deltas(scenario, results);
  const label = (name: string) =>
    name.startsWith("all on")
      ? name
      : `${name} off${name === "rpc-http2" ? " (HTTP/1.1)" : name === "rpc-protobuf" ? " (JSON)" : ""}`;
  const main = [
    ["configuration", "req/s", "p50 ms", "p99 ms", "non-2xx/err", ...shown, "total", "delta total"],
    ...results.map((r, i) => {
      const s = r.scenarios[scenario]!;
      return [
        label(r.name),
        num(s.reqPerSec),
        s.p50Ms.toFixed(2),
        s.p99Ms.toFixed(2),
        `${s.non2xx}/${s.errors}`,
        ...shown.map((p) => num(s.cpuUsPerRequest[p] ?? 0)),
        num(s.totalUsPerRequest),
        `${signed(ds[i]!.totalUsPerRequest)} (${ds[i]!.totalPercent > 0 ? "+" : ""}${ds[i]!.totalPercent}%)`,
      ];
    }),
  ];
  const perProcess = [
    ["delta vs all on", ...shown, "total"],
    ...results.map((r, i) => [
      label(r.name),
      ...shown.map((p) => signed(ds[i]!.cpuUsPerRequest[p] ?? 0)),
      signed(ds[i]!.totalUsPerRequest),
    ]),
  ];
  const hidden = all.filter((p) => !shown.includes(p));
  const runs = results.filter((r) => r.name.startsWith("all on")).map((r) => r.scenarios[scenario]!);
  const drift =
    runs.length === 2
      ? `drift, all on (again) against all on: total ${signed(runs[1]!.totalUsPerRequest - runs[0]!.totalUsPerRequest)} us ` +
        `(${pct(runs[1]!.totalUsPerRequest, runs[0]!.totalUsPerRequest)}), req/s ${pct(runs[1]!.reqPerSec, runs[0]!.reqPerSec)}: ` +
        "a layer's delta smaller than this is within the run's noise"
      : "no drift check (all on ran once)";
  return [
    `${scenario}: ${findScenario(scenario).description}`,
    `CPU us per request per process; total = every process measured${hidden.length ? ` (also ${hidden.join(", ")}, under ${SHOWN_US} us each)` : ""}; delta against the mean of the "all on" runs`,
    "",
    grid(main),
    "",
    grid(perProcess),
    "",
    drift,
  ].join("\n");
}

/** `a` against `b` in percent, signed. */
const pct = (a: number, b: number) => {
  const p = Math.round((1000 * (a - b)) / b) / 10;
  return `${p > 0 ? "+" : ""}${p}%`;
};

const rank = (p: string) => {
  const i = ORDER.indexOf(p);
  return i >= 0 ? i : p === "postgres" ? 100 : p === "nats" ? 101 : 50;
};

/** Rows as aligned text columns: the first left-aligned, the others right-aligned. */
function grid(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}
