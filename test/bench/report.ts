/** Summarising rounds (median per metric), the printed table and the JSON written to results/. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { LoadStats } from "./load.ts";
import type { TargetName } from "./requests.ts";

export interface TargetSummary {
  /** Medians over the rounds. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU microseconds per request, per process (median over the rounds; see cpu.ts). */
  cpuUsPerRequest: Record<string, number>;
  /** Summed over the rounds: responses that were not 2xx, and connection errors. */
  non2xx: number;
  errors: number;
  rounds: LoadStats[];
}

export interface ScenarioSummary {
  name: string;
  description: string;
  targets: Record<TargetName, TargetSummary>;
  /** system / baseline: below 1 for req/s and above 1 for p99 is the system's overhead. */
  ratio: { reqPerSec: number; p99: number };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** The median of `xs` (NaN for none). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function summariseTarget(rounds: LoadStats[]): TargetSummary {
  const processes = [...new Set(rounds.flatMap((r) => Object.keys(r.cpuUsPerRequest ?? {})))];
  return {
    reqPerSec: round3(median(rounds.map((r) => r.reqPerSec))),
    p50Ms: round3(median(rounds.map((r) => r.p50Ms))),
    p99Ms: round3(median(rounds.map((r) => r.p99Ms))),
    cpuUsPerRequest: Object.fromEntries(
      processes.map((p) => [p, Math.round(median(rounds.map((r) => r.cpuUsPerRequest?.[p] ?? Number.NaN)))]),
    ),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    rounds,
  };
}

export function summariseScenario(
  name: string,
  description: string,
  rounds: Record<TargetName, LoadStats[]>,
): ScenarioSummary {
  const baseline = summariseTarget(rounds.baseline);
  const system = summariseTarget(rounds.system);
  return {
    name,
    description,
    targets: { baseline, system },
    ratio: {
      reqPerSec: round3(system.reqPerSec / baseline.reqPerSec),
      p99: round3(system.p99Ms / baseline.p99Ms),
    },
  };
}

/** "gateway 228, postgres 91, ...": the processes that spent anything. */
const cpuList = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .filter(([, us]) => us > 0)
    .map(([p, us]) => `${p} ${us}`)
    .join(", ");

/** A text table: the `left` columns padded right, the others left; the header and its rule first. */
export function textTable(header: string[], rows: string[][], left: number[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (left.includes(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)];
}

const fmt = (n: number, digits: number) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : "-";

/** A plain-text table: one row per scenario and target; ratios on the system row. */
export function formatTable(summaries: ScenarioSummary[]): string {
  const header = [
    "scenario",
    "target",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx/err",
    "req/s ratio",
    "p99 ratio",
    "CPU us/req (per process)",
  ];
  const rows: string[][] = [];
  for (const s of summaries) {
    for (const name of ["baseline", "system"] as const) {
      const t = s.targets[name];
      rows.push([
        s.name,
        name,
        fmt(t.reqPerSec, 0),
        fmt(t.p50Ms, 2),
        fmt(t.p99Ms, 2),
        `${t.non2xx}/${t.errors}`,
        name === "system" ? `${fmt(s.ratio.reqPerSec, 2)}x` : "",
        name === "system" ? `${fmt(s.ratio.p99, 2)}x` : "",
        cpuList(t.cpuUsPerRequest),
      ]);
    }
  }
  return textTable(header, rows, [0, 1, 8]).join("\n");
}

/**
 * One scenario against another, system against system in the same run (a view scenario against the
 * other way to show the same view): `name` / `versus` of throughput, p50 and p99.
 */
export interface Comparison {
  name: string;
  versus: string;
  ratio: { reqPerSec: number; p50: number; p99: number };
}

/** The comparison of each `[name, versus]` pair whose scenarios both ran. */
export function compareScenarios(summaries: ScenarioSummary[], pairs: [string, string][]): Comparison[] {
  const system = (name: string) => summaries.find((s) => s.name === name)?.targets.system;
  return pairs.flatMap(([name, versus]) => {
    const a = system(name);
    const b = system(versus);
    if (!a || !b) return [];
    return [
      {
        name,
        versus,
        ratio: {
          reqPerSec: round3(a.reqPerSec / b.reqPerSec),
          p50: round3(a.p50Ms / b.p50Ms),
          p99: round3(a.p99Ms / b.p99Ms),
        },
      },
    ];
  });
}

/** One line per comparison, with both scenarios' system figures. */
export function formatComparisons(summaries: ScenarioSummary[], comparisons: Comparison[]): string {
  const system = (name: string) => summaries.find((s) => s.name === name)!.targets.system;
  return comparisons
    .map(({ name, versus, ratio }) => {
      const a = system(name);
      const b = system(versus);
      return (
        `${name} / ${versus} (system, same run): ${fmt(ratio.reqPerSec, 2)}x the rate ` +
        `(${fmt(a.reqPerSec, 0)} vs ${fmt(b.reqPerSec, 0)} per s), p50 ${fmt(ratio.p50, 2)}x ` +
        `(${fmt(a.p50Ms, 2)} vs ${fmt(b.p50Ms, 2)} ms), p99 ${fmt(ratio.p99, 2)}x (${fmt(a.p99Ms, 2)} vs ${fmt(b.p99Ms, 2)} ms)`
      );
    })
    .join("\n");
}

export function writeResults(file: string, data: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}

/** The consumer modes of a fan-out scenario (fanout.ts): every consumer running, or only the kept service's. */
export type ConsumerMode = "all" | "only";

/** One mode of a fan-out scenario: its runs summarised as a target's rounds are. */
export interface FanoutModeSummary extends TargetSummary {
  /** CPU microseconds per request of all the processes together (median over the runs of each run's sum). */
  totalCpuUsPerRequest: number;
}

export interface FanoutSummary {
  name: string;
  description: string;
  /** The write measured, as the line names it ("POST category"). */
  write: string;
  /** The service whose consumers ran in both modes. */
  kept: string;
  /** Services restarted with EVENT_CONSUMERS=off for the `only` mode, each with its consumers. */
  switchedOff: Record<string, string[]>;
  /** The order the runs went in. */
  runs: ConsumerMode[];
  modes: Record<ConsumerMode, FanoutModeSummary>;
  /** all / only - 1, of the total CPU per request: what the switched-off consumers add to each write. */
  cpuIncrease: number;
  /** The figure the issue asks for, as printed. */
  line: string;
}

/** The label of a mode in the table and the line. */
export const modeLabel = (mode: ConsumerMode, kept: string) => (mode === "all" ? "all" : `${kept}-only`);

/** A signed percentage: +12.3%, -0.4%. */
const percent = (fraction: number) =>
  Number.isFinite(fraction) ? `${fraction >= 0 ? "+" : ""}${(fraction * 100).toFixed(1)}%` : "-";

/** The runs of each mode summarised (medians), the increase and its line. */
export function summariseFanout(
  scenario: { name: string; description: string; write: string; kept: string },
  switchedOff: Record<string, string[]>,
  runs: { mode: ConsumerMode; stats: LoadStats }[],
): FanoutSummary {
  const mode = (m: ConsumerMode): FanoutModeSummary => {
    const stats = runs.filter((r) => r.mode === m).map((r) => r.stats);
    const totals = stats.map((s) => {
      const us = Object.values(s.cpuUsPerRequest ?? {});
      return us.length ? us.reduce((a, b) => a + b, 0) : Number.NaN;
    });
    return { ...summariseTarget(stats), totalCpuUsPerRequest: Math.round(median(totals)) };
  };
  const modes = { all: mode("all"), only: mode("only") };
  const cpuIncrease = round3(modes.all.totalCpuUsPerRequest / modes.only.totalCpuUsPerRequest - 1);
  return {
    name: scenario.name,
    description: scenario.description,
    write: scenario.write,
    kept: scenario.kept,
    switchedOff,
    runs: runs.map((r) => r.mode),
    modes,
    cpuIncrease,
    line:
      `fan-out: CPU per ${scenario.write} with all consumers = ${fmt(modes.all.totalCpuUsPerRequest, 0)} us ` +
      `vs ${modeLabel("only", scenario.kept)} ${fmt(modes.only.totalCpuUsPerRequest, 0)} us (${percent(cpuIncrease)})`,
  };
}

/** A table of the modes (one row each, medians over its runs), then the line. */
export function formatFanout(f: FanoutSummary): string {
  const header = [
    "mode",
    "runs",
    "req/s",
    "p50 ms",
    "p99 ms",
    "non-2xx/err",
    "CPU us/req",
    "CPU us/req (per process)",
  ];
  const rows = (["all", "only"] as const).map((m) => {
    const t = f.modes[m];
    return [
      modeLabel(m, f.kept),
      String(t.rounds.length),
      fmt(t.reqPerSec, 0),
      fmt(t.p50Ms, 2),
      fmt(t.p99Ms, 2),
      `${t.non2xx}/${t.errors}`,
      fmt(t.totalCpuUsPerRequest, 0),
      cpuList(t.cpuUsPerRequest),
    ];
  });
  const off = Object.entries(f.switchedOff)
    .map(([svc, consumers]) => `${svc} (${consumers.join(", ")})`)
    .join(", ");
  return [
    `${f.name}: ${f.write}, system only; ${modeLabel("only", f.kept)}: ${off || "nothing"} restarted with EVENT_CONSUMERS=off`,
    ...textTable(header, rows, [0, 7]),
    f.line,
  ].join("\n");
}
