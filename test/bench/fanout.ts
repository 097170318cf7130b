/**
 * The fan-out scenario (issue 26): every durable event consumer taxes the writes of every other
 * service (each event is delivered to it, decoded, acknowledged), whether it uses them or not. This
 * measures one write (a {@link FanoutScenario}) on the system alone in two modes:
 *
 * - `all`: every service as deployed, every consumer running;
 * - `only`: only the kept service's consumers (audit's, which records every write): every other
 *   service that runs consumers is restarted with EVENT_CONSUMERS=off (services/kit/src/service.ts).
 *
 * Which services run consumers is read from their /metrics (`fop_consumer_events_total` has a
 * series per consumer from its start), so a new consumer is switched off without a change here.
 * The runs alternate, `all` first and last (all, only, all, only, ..., all: BENCH_ROUNDS runs of
 * `only` between BENCH_ROUNDS + 1 of `all`), so slow drift on a shared machine hits both modes.
 *
 * A run's CPU is counted from its start until the system is drained: the outbox tables empty and
 * every running consumer caught up (nothing pending or unacknowledged in JetStream). A consumer
 * that falls behind during the run is charged for the events it takes after it; a run starts only
 * once the previous one's work (or, after a switch back to `all`, the backlog the switched-off
 * consumers take up again) is done, so it is charged to no run.
 *
 * Afterwards every service runs as deployed again (consumers on) and has caught up, so later
 * scenarios are unaffected: a switched-off durable stays in JetStream and keeps its position, and
 * takes the events it missed once its service runs with consumers again.
 */
import { randomBytes } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { parsePrometheusText } from "../support/prometheus.ts";
import { type CpuProbe, cpuPerRequest, cpuSince, cpuSnapshot } from "./cpu.ts";
import { describeLoad, type LoadGenMode, type LoadJob, type LoadStats, runLoad } from "./load.ts";
import { type ConsumerMode, type FanoutSummary, modeLabel, summariseFanout } from "./report.ts";
import type { Target } from "./requests.ts";
import type { FanoutScenario } from "./scenarios.ts";
import type { BenchSystem } from "./system.ts";

type ServiceName = keyof BenchSystem["system"]["services"];

/** The order of the runs: `all` first and last, `only` between (see the module comment). */
export const fanoutPlan = (rounds: number): ConsumerMode[] => [
  "all",
  ...Array.from({ length: rounds }, () => ["only", "all"] as const).flat(),
];

/** The consumers an exposition lists (a `fop_consumer_events_total` series each), sorted. */
export function consumersIn(metricsText: string): string[] {
  const names = parsePrometheusText(metricsText)
    .find("fop_consumer_events_total")
    .map((s) => s.labels.consumer)
    .filter((c): c is string => !!c);
  return [...new Set(names)].sort();
}

/** How long a drain may take (the backlog of a whole run of `only`, taken up again). */
const DRAIN_TIMEOUT_MS = 180_000;

export interface FanoutOptions {
  target: Target;
  rounds: number;
  durationSec: number;
  warmupSec: number;
  connections: number;
  loadGenerator: LoadGenMode;
  /** The system's CPU probe as of now (a restarted service has a new pid). */
  cpu: () => CpuProbe;
  log: (msg: string) => void;
}

export async function runFanout(
  scenario: FanoutScenario,
  bench: BenchSystem,
  opts: FanoutOptions,
): Promise<FanoutSummary> {
  const { system } = bench;
  const { log } = opts;
  const services = Object.keys(system.services) as ServiceName[];
  const consumers: Partial<Record<ServiceName, string[]>> = {};
  for (const name of services) {
    const res = await fetch(`${system.services[name].adminUrl}/metrics`);
    if (!res.ok) throw new Error(`${name}: GET /metrics answered ${res.status}`);
    const found = consumersIn(await res.text());
    if (found.length) consumers[name] = found;
  }
  if (!consumers[scenario.kept as ServiceName])
    throw new Error(`${scenario.name}: ${scenario.kept} runs no event consumer`);
  const switched = services.filter((s) => s !== scenario.kept && consumers[s]);
  const switchedOff = Object.fromEntries(switched.map((s) => [s, consumers[s]!]));
  log(
    `${scenario.name}: consumers ${JSON.stringify(consumers)}; ${modeLabel("only", scenario.kept)} ` +
      `restarts ${switched.join(", ") || "nothing"} with EVENT_CONSUMERS=off`,
  );

  const nc = await connect({ servers: system.events.natsUrl });
  const jsm = await jetstreamManager(nc);
  const db = new pg.Client({ connectionString: bench.databaseUrl });
  await db.connect();
  /** Services now running without their consumers. */
  const off = new Set<ServiceName>();

  const outboxes = (
    await db.query<{ schema: string }>(
      "select table_schema as schema from information_schema.tables where table_name = 'outbox' order by 1",
    )
  ).rows.map((r) => r.schema);
  if (outboxes.length === 0) throw new Error(`${scenario.name}: no outbox table in ${bench.databaseUrl}`);
  const outboxRows = async () =>
    Number(
      (
        await db.query<{ n: string }>(
          `select ${outboxes.map((s) => `(select count(*) from "${s}".outbox)`).join(" + ")} as n`,
        )
      ).rows[0]!.n,
    );
  /**
   * Each consumer's events in JetStream not yet acknowledged (pending + delivered unacknowledged),
   * over its durables: its own, or its lanes' `<name>-<key>` (notifications' dispatch).
   */
  const backlog = async (names: string[]) => {
    const left: Record<string, number> = Object.fromEntries(names.map((c) => [c, 0]));
    for await (const info of jsm.consumers.list(system.events.stream)) {
      const c = names.find((n) => info.name === n || info.name.startsWith(`${n}-`));
      if (c) left[c]! += info.num_pending + info.num_ack_pending;
    }
    return left;
  };
  /** Until nothing is left in an outbox and every running consumer has caught up, twice in a row. */
  const drained = async (when: string) => {
    const running = Object.entries(consumers).flatMap(([s, cs]) => (off.has(s as ServiceName) ? [] : cs));
    const end = Date.now() + DRAIN_TIMEOUT_MS;
    let left: Record<string, number> = {};
    let rows = 0;
    for (let quiet = 0; quiet < 2; ) {
      rows = await outboxRows();
      left = await backlog(running);
      quiet = rows === 0 && Object.values(left).every((n) => n === 0) ? quiet + 1 : 0;
      if (Date.now() > end)
        throw new Error(
          `${scenario.name}: not drained ${when} within ${DRAIN_TIMEOUT_MS / 1000} s: ` +
            `${rows} outbox rows, waiting ${JSON.stringify(left)}`,
        );
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  /** Restarts the switched services that run otherwise than `mode` needs. */
  const enter = async (mode: ConsumerMode) => {
    for (const name of switched) {
      const wantOff = mode === "only";
      if (off.has(name) === wantOff) continue;
      const started = Date.now();
      await system.stopService(name);
      await system.restartService(name, wantOff ? { EVENT_CONSUMERS: "off" } : {});
      if (wantOff) off.add(name);
      else off.delete(name);
      log(
        `${scenario.name}: ${name} restarted, consumers ${wantOff ? "off" : "on"} (${Date.now() - started} ms)`,
      );
    }
  };
  const job = (durationSec: number): LoadJob => ({
    scenario: scenario.name,
    target: opts.target,
    seed: undefined,
    runId: randomBytes(4).toString("hex"),
    connections: opts.connections,
    durationSec,
  });

  const runs: { mode: ConsumerMode; stats: LoadStats }[] = [];
  try {
    await drained("before the warm-up");
    if (opts.warmupSec > 0) {
      const s = await runLoad(job(opts.warmupSec), opts.loadGenerator);
      if (s.completed === 0 || s.non2xx > 0 || s.errors > 0)
        throw new Error(`${scenario.name}: warm-up failed: ${describeLoad(s)}`);
      log(`${scenario.name}: warm-up (all): ${describeLoad(s)}`);
    }
    const plan = fanoutPlan(opts.rounds);
    for (const [i, mode] of plan.entries()) {
      await enter(mode);
      const wait = Date.now();
      await drained(`before run ${i + 1}`);
      if (Date.now() - wait > 1000)
        log(`${scenario.name}: caught up in ${((Date.now() - wait) / 1000).toFixed(1)} s`);
      const before = cpuSnapshot(opts.cpu());
      const s = await runLoad(job(opts.durationSec), opts.loadGenerator);
      await drained(`after run ${i + 1}`);
      s.cpuUsPerRequest = cpuPerRequest(cpuSince(opts.cpu(), before), s.completed);
      runs.push({ mode, stats: s });
      const total = Object.values(s.cpuUsPerRequest).reduce((a, b) => a + b, 0);
      const waiting = off.size
        ? `; waiting for the switched-off consumers: ${JSON.stringify(await backlog(switched.flatMap((n) => consumers[n]!)))}`
        : "";
      log(
        `${scenario.name}: run ${i + 1}/${plan.length} ${modeLabel(mode, scenario.kept)}: ${describeLoad(s)}, ` +
          `CPU ${total} us/req${waiting}`,
      );
    }
  } finally {
    // As deployed again, caught up: the scenarios after this one measure the usual system.
    try {
      await enter("all");
      await drained("after the scenario (the switched-off consumers catching up)");
    } finally {
      await db.end();
      await nc.close();
    }
  }
  return summariseFanout(scenario, switchedOff, runs);
}
