/**
 * CPU profiles of a benchmark run (`npm run bench -- --profile`): V8 `.cpuprofile` files, one per
 * process, and the table "top self-time functions per process" made from them.
 *
 * The gateway and the baseline share the bench process, so its profile is taken with the inspector
 * only while the system is under load (never during the baseline's runs); the services are their
 * own processes, started with `--cpu-prof` (written when they exit).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  /** Share of the process's non-idle samples, 0..1. */
  share: number;
  ms: number;
}

/** Where a frame comes from, short: package name or the project file. */
function origin(url: string): string {
  if (!url) return "(native)";
  const nm = url.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "/node_modules/".length).split("/");
    return rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith("node:")) return url;
  const i = url.search(/\/(services|gateway|test)\//);
  return i >= 0 ? url.slice(i + 1) : path.basename(url);
}

/**
 * Self time summed per key of the sampled node (idle and program time excluded), the `top` highest
 * first, with the busy total.
 */
function selfTimeBy(
  profile: CpuProfile,
  keyOf: (node: ProfileNode) => string,
  top: number,
): { rows: SelfTime[]; busyMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const name = node?.callFrame.functionName;
    if (!node || name === "(idle)" || name === "(program)") return;
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    busy += dt;
    const key = keyOf(node);
    totals.set(key, (totals.get(key) ?? 0) + dt);
  });
  const rows = [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, ms]) => ({ fn, ms: Math.round(ms), share: busy ? ms / busy : 0 }));
  return { rows, busyMs: Math.round(busy) };
}

/** Self time per function (name + origin), highest first; idle and GC-free program time excluded. */
export function selfTimes(profile: CpuProfile, top = 15): { rows: SelfTime[]; busyMs: number } {
  return selfTimeBy(
    profile,
    ({ callFrame: f }) =>
      `${f.functionName || "(anonymous)"} ${origin(f.url)}${f.url ? `:${f.lineNumber + 1}` : ""}`,
    top,
  );
}

/** Self time per origin (npm package, node internals, or the project's own source). */
export function selfTimeByOrigin(profile: CpuProfile, top = 10): SelfTime[] {
  return selfTimeBy(
    profile,
    ({ callFrame: f }) => {
      const o = origin(f.url);
      if (o.startsWith("node:")) return "node internals";
      return o.startsWith("services/") || o.startsWith("gateway/") ? "project" : o;
    },
    top,
  ).rows;
}

/**
 * Inclusive (self + callees) time per function of the project's own code: what each layer of ours
 * costs with everything it calls. A function on the stack twice (recursion) counts once per sample.
 */
export function projectInclusiveTimes(profile: CpuProfile, top = 15): SelfTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(id)?.callFrame.functionName;
    if (leaf === "(idle)" || leaf === "(program)") return;
    busy += dt;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      const o = origin(f.url);
      if (!(o.startsWith("services/") || o.startsWith("gateway/"))) continue;
      const key = `${f.functionName || "(anonymous)"} ${o}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      totals.set(key, (totals.get(key) ?? 0) + dt);
    }
  });
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, ms]) => ({ fn, ms: Math.round(ms), share: busy ? ms / busy : 0 }));
}

/** Markdown: one table per profile file in `dir` (file name = process). */
export function profileTables(dir: string, top = 12): string {
  const out: string[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()) {
    const profile = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as CpuProfile;
    const { rows, busyMs } = selfTimes(profile, top);
    out.push(`#### ${file.replace(/\.cpuprofile$/, "")} (busy ${busyMs} ms)\n`);
    const origins = selfTimeByOrigin(profile)
      .map((r) => `${r.fn} ${(r.share * 100).toFixed(0)}%`)
      .join(", ");
    out.push(`By origin: ${origins}\n`);
    out.push("| self | function |", "| ---: | --- |");
    for (const r of rows) out.push(`| ${(r.share * 100).toFixed(1)}% | \`${r.fn}\` |`);
    out.push("", "| incl. | our function (with what it calls) |", "| ---: | --- |");
    for (const r of projectInclusiveTimes(profile, 8))
      out.push(`| ${(r.share * 100).toFixed(1)}% | \`${r.fn}\` |`);
    out.push("");
  }
  return out.join("\n");
}

/** The bench process's own profile, taken around the system's runs only (the baseline shares it). */
export class InProcessProfiler {
  private session: Session | undefined;
  private readonly file: string;
  constructor(file: string) {
    this.file = file;
  }
  async start(): Promise<void> {
    this.session = new Session();
    this.session.connect();
    await this.session.post("Profiler.enable");
    await this.session.post("Profiler.setSamplingInterval", { interval: 200 });
    await this.session.post("Profiler.start");
  }
  async stop(): Promise<void> {
    if (!this.session) return;
    const { profile } = await this.session.post("Profiler.stop");
    this.session.disconnect();
    this.session = undefined;
    writeFileSync(this.file, JSON.stringify(profile));
  }
}
