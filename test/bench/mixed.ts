/**
 * The mixed-load scenario (open-loop.ts has the request mix): one tenant's reads, searches and
 * writes at a fixed rate, stepped up until a step fails; the result is the highest rate the system
 * held with p99 < 50 ms and no errors (no non-2xx answer, no connection error, no request given up).
 * That is the figure to compare with the hosted platform's ~1,000 req/s per tenant.
 *
 * Each step runs in a fresh worker thread (like load.ts), after one unmeasured second at its rate;
 * the first step after a longer warm-up (BENCH_MIXED_WARMUP).
 */
import { type CpuProbe, cpuSince, cpuSnapshot } from "./cpu.ts";
import { inWorker } from "./load.ts";
import type { OpenLoopJob, OpenLoopStats } from "./open-loop.ts";

export interface MixedOptions {
  startRate: number;
  stepRate: number;
  maxRate: number;
  stepSec: number;
  warmupSec: number;
  /** The p99 a step must stay under. */
  p99LimitMs: number;
  /** When given, each step reports the CPU each of these spent per request (`cpuUsPerRequest`). */
  cpu?: CpuProbe;
}

export interface MixedResult {
  /** Highest rate held (0 if not even the first). */
  heldRate: number;
  p99LimitMs: number;
  steps: (OpenLoopStats & { held: boolean; cpuUsPerRequest?: Record<string, number> })[];
}

export const held = (s: OpenLoopStats, p99LimitMs: number) =>
  s.p99Ms < p99LimitMs && s.non2xx === 0 && s.errors === 0 && s.gaveUp === 0 && s.completed === s.scheduled;

const inOpenLoopWorker = (job: OpenLoopJob) =>
  inWorker<OpenLoopStats>(new URL("./open-loop-worker.ts", import.meta.url), job);

export async function runMixed(
  base: Omit<OpenLoopJob, "rate" | "durationSec" | "runId">,
  opts: MixedOptions,
  log: (msg: string) => void,
): Promise<MixedResult> {
  const runId = () => Math.random().toString(36).slice(2, 10);
  const describe = (s: OpenLoopStats) =>
    `${s.rate} req/s: p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms, max ${s.maxMs} ms, ` +
    `${s.completed}/${s.scheduled} answered, non-2xx ${s.non2xx}, errors ${s.errors}, gave up ${s.gaveUp}`;
  if (opts.warmupSec > 0) {
    const w = await inOpenLoopWorker({
      ...base,
      rate: opts.startRate,
      durationSec: opts.warmupSec,
      runId: runId(),
    });
    log(`mixed: warm-up ${describe(w)}`);
  }
  const steps: MixedResult["steps"] = [];
  let heldRate = 0;
  for (let rate = opts.startRate; rate <= opts.maxRate; rate += opts.stepRate) {
    const before = opts.cpu ? cpuSnapshot(opts.cpu) : undefined;
    const s = await inOpenLoopWorker({
      ...base,
      rate,
      durationSec: opts.stepSec,
      runId: runId(),
      warmupSec: 1,
    });
    // Over the whole step, its unmeasured second included (so slightly high per request).
    const cpuUsPerRequest =
      opts.cpu && before
        ? Object.fromEntries(
            Object.entries(cpuSince(opts.cpu, before)).map(([k, sec]) => [
              k,
              Math.round((sec * 1e6) / (s.scheduled + s.rate)),
            ]),
          )
        : undefined;
    const ok = held(s, opts.p99LimitMs);
    steps.push({ ...s, held: ok, ...(cpuUsPerRequest ? { cpuUsPerRequest } : {}) });
    const cpuText = cpuUsPerRequest
      ? `; CPU us/req ${Object.entries(cpuUsPerRequest)
          .map(([k, us]) => `${k} ${us}`)
          .join(", ")}`
      : "";
    log(`mixed: ${ok ? "held" : "NOT held"} ${describe(s)}${cpuText}`);
    if (!ok) break;
    heldRate = rate;
  }
  return { heldRate, p99LimitMs: opts.p99LimitMs, steps };
}
