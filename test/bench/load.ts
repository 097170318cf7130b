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
 *
 * A view scenario (scenarios.ts' ViewScenario) runs the same way but without autocannon, which sends
 * one request at a time per connection and times requests: {@link fireViews}' clients each send one
 * view's requests (in parallel where the view does), on keep-alive connections of their own
 * (http1.ts), the next view once the last is shown, and time whole views.
 */
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";
import { type CpuProbe, cpuPerRequest, cpuSince, cpuSnapshot } from "./cpu.ts";
import { Http1Pool, requestFormatter } from "./http1.ts";
import type { Target } from "./requests.ts";
import { BadAnswer, findScenario, requestsFor, type ViewBuilder, type ViewClient } from "./scenarios.ts";

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
  /** View scenarios: what the first failed view got (a bad answer or a connection error). */
  failure?: string;
  /** CPU microseconds per completed request, per process (filled by the runner, see cpu.ts). */
  cpuUsPerRequest?: Record<string, number>;
}

export type LoadGenMode = "worker" | "inline";

/** Nearest-rank percentile of ascending `sorted`. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** How long a request may take (autocannon's and the view loop's). */
const TIMEOUT_MS = 10_000;

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs `job` in the current thread: autocannon, or the view loop for a view scenario. */
export async function fire(job: LoadJob): Promise<LoadStats> {
  const scenario = findScenario(job.scenario);
  if ("view" in scenario) return fireViews(job, scenario.view[job.target.name]);
  const requests = requestsFor(scenario, job.target.name)({ seed: job.seed, runId: job.runId });
  const latencies: number[] = [];
  const instance = autocannon({
    url: job.target.baseUrl,
    connections: job.connections,
    duration: job.durationSec,
    headers: job.target.headers,
    requests,
    timeout: TIMEOUT_MS / 1000,
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

/**
 * A view scenario's closed loop: `job.connections` clients, each with its own keep-alive
 * connections (one per request in flight, as a client opens them), send views back to back for
 * `job.durationSec`. A view counts when it ends inside that time: `reqPerSec` is views per second,
 * the latencies a whole view's (shown views only), `non2xx` the views that got a bad answer,
 * `errors` those that lost a connection or timed out; `statusCodes` counts every answer.
 */
async function fireViews(job: LoadJob, build: ViewBuilder<unknown>): Promise<LoadStats> {
  const view = build({ seed: job.seed, runId: job.runId });
  const format = requestFormatter(job.target.baseUrl, job.target.headers);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let completed = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let failure: string | undefined;
  const end = performance.now() + job.durationSec * 1000;

  const client = async () => {
    const pool = new Http1Pool(job.target.baseUrl);
    const http: ViewClient = {
      async json<T>(method: "GET" | "POST", path: string, body?: string): Promise<T> {
        const res = await pool.request(format(method, path, body), { wantBody: true, timeoutMs: TIMEOUT_MS });
        statusCodes[res.status] = (statusCodes[res.status] ?? 0) + 1;
        const text = res.body.toString();
        if (res.status < 200 || res.status > 299)
          throw new BadAnswer(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
        return JSON.parse(text) as T;
      },
    };
    try {
      while (performance.now() < end) {
        const started = performance.now();
        let failed: unknown;
        await view(http).catch((err: unknown) => {
          failed = err;
        });
        const ended = performance.now();
        if (ended > end) break;
        completed++;
        if (failed === undefined) {
          latencies.push(ended - started);
          continue;
        }
        failure ??= (failed as Error).message;
        if (failed instanceof BadAnswer) non2xx++;
        else {
          errors++;
          if ((failed as Error).message === "timeout") timeouts++;
        }
      }
    } finally {
      pool.close();
    }
  };
  await Promise.all(Array.from({ length: job.connections }, client));
  const sorted = Float64Array.from(latencies).sort();
  const ms = (p: number) => round(percentile(sorted, p), 3);
  return {
    reqPerSec: round(completed / job.durationSec, 1),
    p50Ms: ms(50),
    p90Ms: ms(90),
    p99Ms: ms(99),
    completed,
    durationSec: job.durationSec,
    non2xx,
    errors,
    timeouts,
    statusCodes,
    ...(failure === undefined ? {} : { failure }),
  };
}

/**
 * Runs `job` ({@link runLoad}) and fills in the CPU each process of `probe` spent per completed
 * request meanwhile (microseconds, cpu.ts).
 */
export async function measureLoad(job: LoadJob, mode: LoadGenMode, probe: CpuProbe): Promise<LoadStats> {
  const before = cpuSnapshot(probe);
  const s = await runLoad(job, mode);
  s.cpuUsPerRequest = cpuPerRequest(cpuSince(probe, before), s.completed);
  return s;
}

/** One line about a run: rate, p50, p99 and, if any, what failed. */
export const describeLoad = (s: LoadStats) =>
  `${Math.round(s.reqPerSec)} req/s, p50 ${s.p50Ms.toFixed(2)} ms, p99 ${s.p99Ms.toFixed(2)} ms` +
  (s.non2xx || s.errors
    ? ` (non-2xx ${s.non2xx}, errors ${s.errors}: ${JSON.stringify(s.statusCodes)}` +
      `${s.failure ? `; first: ${s.failure}` : ""})`
    : "");

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
