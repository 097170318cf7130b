/**
 * CPU time of processes and threads, from /proc (Linux): a steadier figure than throughput on a
 * shared machine. The gateway shares the bench process with the baseline and the load generator's
 * worker thread, so its figure is the main thread's alone (the baseline is idle during system runs).
 * A target `comm:<name>` is every process of that command name (all Postgres backends, the NATS
 * server), summed per pid so processes that start during a run count from zero.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU seconds of `/proc/<path>/stat` (a process, or `<pid>/task/<tid>` a thread). */
function cpuSeconds(statPath: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${statPath}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export interface CpuProbe {
  /** Name -> /proc path: "<pid>" for a process, "<pid>/task/<tid>" for a thread. */
  targets: Record<string, string>;
}

/** pid -> CPU seconds of every process whose command name is `comm`. */
function cpuOfCommand(comm: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== comm) continue;
    } catch {
      continue;
    }
    const s = cpuSeconds(pid);
    if (s !== undefined) out.set(pid, s);
  }
  return out;
}

export type CpuSnapshot = Record<string, number | Map<string, number>>;

/** A snapshot now; {@link cpuSince} gives CPU seconds per name spent since. */
export function cpuSnapshot(probe: CpuProbe): CpuSnapshot {
  return Object.fromEntries(
    Object.entries(probe.targets).map(([name, p]) => [
      name,
      p.startsWith("comm:") ? cpuOfCommand(p.slice(5)) : (cpuSeconds(p) ?? Number.NaN),
    ]),
  );
}

export function cpuSince(probe: CpuProbe, before: CpuSnapshot): Record<string, number> {
  const now = cpuSnapshot(probe);
  return Object.fromEntries(
    Object.entries(now).map(([name, s]) => {
      const was = before[name];
      if (typeof s === "number") return [name, s - (typeof was === "number" ? was : Number.NaN)];
      let sum = 0;
      for (const [pid, sec] of s) sum += sec - ((was instanceof Map ? was.get(pid) : undefined) ?? 0);
      return [name, sum];
    }),
  );
}

/** CPU microseconds per completed request of each name in `spent` (CPU seconds, {@link cpuSince}). */
export function cpuPerRequest(spent: Record<string, number>, completed: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(spent).map(([p, sec]) => [
      p,
      completed ? Math.round((sec * 1e6) / completed) : Number.NaN,
    ]),
  );
}
