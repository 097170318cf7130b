/**
 * CPU time of processes and threads, from /proc (Linux): a steadier figure than throughput on a
 * shared machine. The gateway shares the bench process with the baseline and the load generator's
 * worker thread, so its figure is the main thread's alone (the baseline is idle during system runs).
 */
import { readFileSync } from "node:fs";

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

/** A snapshot now; `since(snapshot)` gives CPU seconds per name spent in between. */
export function cpuSnapshot(probe: CpuProbe): Record<string, number> {
  return Object.fromEntries(
    Object.entries(probe.targets).map(([name, p]) => [name, cpuSeconds(p) ?? Number.NaN]),
  );
}

export function cpuSince(probe: CpuProbe, before: Record<string, number>): Record<string, number> {
  const now = cpuSnapshot(probe);
  return Object.fromEntries(Object.entries(now).map(([name, s]) => [name, s - (before[name] ?? Number.NaN)]));
}
