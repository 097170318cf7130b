/**
 * Load generation: one autocannon run of one scenario against one target.
 *
 * By default each run happens in a fresh worker thread (load-worker.ts). The system under test
 * (gateway + catalog) and the baseline run on this process's main event loop, and the system keeps
 * that loop busy; autocannon in the same loop competes with it, and its latency clock then includes
 * time the server spent on the shared loop. A worker has its own loop and heap, costs ~100 ms to
 * start (outside the measured window), and sends the results back as plain data. Measured on the
 * shared 2-core machine (get-category, 2 x 5 s rounds, two runs of each mode): system 403 and
 * 391 req/s, p99 44 and 50 ms in a worker; 359 and 320 req/s, p99 54 and 90 ms inline. The baseline
 * did not clearly differ (noise of +-30% between runs). BENCH_LOADGEN=inline runs autocannon on the
 * main thread, to compare again.
 *
 * Latency percentiles are computed here from autocannon's per-response times (fractional ms) rather
 * than taken from its histograms, which have 1 ms resolution — too coarse for a baseline whose
 * median is a few milliseconds. Like autocannon, only 2xx responses count towards latency.
 */
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";
import { findScenario, type Target } from "./scenarios.ts";

export interface LoadJob {
  scenario: string;
  target: Target;
  /** The scenario's seed for this target (structured-cloneable). */
  seed: unknown;
  runId: string;
  connections: number;
  durationSec: number;
}

export interface LoadStats {
  /** Completed responses (any status) per second of the run. */
  reqPerSec: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  completed: number;
  durationSec: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU microseconds per completed request, per process (filled by the runner, see cpu.ts). */
  cpuUsPerRequest?: Record<string, number>;
}

export type LoadGenMode = "worker" | "inline";

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs autocannon for `job` in the current thread. */
export async function fire(job: LoadJob): Promise<LoadStats> {
  const scenario = findScenario(job.scenario);
  const requests = scenario[job.target.name]({ seed: job.seed, runId: job.runId });
  const latencies: number[] = [];
  const instance = autocannon({
    url: job.target.baseUrl,
    connections: job.connections,
    duration: job.durationSec,
    headers: job.target.headers,
    requests,
    timeout: 10,
    // Raw (not aggregated) results in every thread, so both modes read the same fields.
    skipAggregateResult: true,
  });
  instance.on("response", (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r = await instance;
  const sorted = Float64Array.from(latencies).sort();
  const ms = (p: number) => round(percentile(sorted, p), 3);
  return {
    reqPerSec: round(r.duration > 0 ? r.totalCompletedRequests / r.duration : 0, 1),
    p50Ms: ms(50),
    p90Ms: ms(90),
    p99Ms: ms(99),
    completed: r.totalCompletedRequests,
    durationSec: r.duration,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([k, v]) => [k, v.count])),
  };
}

/** Runs `job` in a fresh worker thread (default) or inline. */
export function runLoad(job: LoadJob, mode: LoadGenMode): Promise<LoadStats> {
  if (mode === "inline") return fire(job);
  return inWorker<LoadStats>(new URL("./load-worker.ts", import.meta.url), job);
}

/** Runs `module` (which posts one result) in a fresh worker thread with `data`; its result. */
export function inWorker<R>(module: URL, data: unknown): Promise<R> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(module, { workerData: data });
    let result: R | undefined;
    worker.once("message", (m: R) => {
      result = m;
    });
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (result !== undefined) resolve(result);
      else reject(new Error(`${module.pathname} exited with code ${code} without a result`));
    });
  });
}
