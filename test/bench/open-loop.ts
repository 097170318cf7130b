/**
 * Open-loop load for the mixed scenario (mixed.ts): requests go out on a fixed schedule, `rate` per
 * second, whatever is still outstanding, and each latency is measured from the request's SCHEDULED
 * time. A server that falls behind therefore shows it in its latencies (and in requests the
 * generator had to give up on), instead of quietly slowing the generator down the way a closed
 * loop (autocannon: a connection sends its next request only after the last answer) does.
 *
 * One tenant's traffic: per 20 requests, 14 `GET /api/pickjobs/{id}` over the seeded jobs, 4 pick
 * job searches (one facility's OPEN jobs by targetTime), 1 `POST /api/pickjobs` and 1 `START` action
 * on a job this run created (a create while there is none yet). Runs in a worker thread
 * (open-loop-worker.ts) so its event loop does not share the gateway's.
 */
import { Http1Pool, requestFormatter } from "./http1.ts";
import { percentile } from "./load.ts";
import { type PickJobSeed, pickJobBody } from "./pickjob-seed.ts";
import { pickJobSearchBody } from "./scenarios.ts";

export interface OpenLoopJob {
  baseUrl: string;
  /** Headers of every request (the token). */
  headers: Record<string, string>;
  /** Requests per second, scheduled evenly. */
  rate: number;
  durationSec: number;
  seed: PickJobSeed;
  /** Unique per run: keeps tenantOrderIds unique. */
  runId: string;
  /** Requests outstanding at most; a request due beyond that is given up (counted in `gaveUp`). */
  maxInFlight: number;
  /**
   * Seconds at the same rate before the measured window, not counted: the worker's own code (a
   * fresh thread) gets warm, so its start-up does not show up as the server's latency.
   */
  warmupSec?: number;
}

export type RequestKind = "get" | "search" | "create" | "action";

export interface OpenLoopStats {
  rate: number;
  durationSec: number;
  /** Requests scheduled, answered (any status), answered 2xx. */
  scheduled: number;
  completed: number;
  ok: number;
  /** Non-2xx answers, connection errors, answers that took longer than the timeout. */
  non2xx: number;
  errors: number;
  /** Due while maxInFlight were outstanding: the system could not keep up. */
  gaveUp: number;
  /** Latency from the scheduled send time, over every answered request. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  byKind: Record<RequestKind, { count: number; p99Ms: number }>;
  statusCodes: Record<string, number>;
}

/** The kind of the i-th request: 14 gets, 4 searches, a create and an action per 20. */
export function kindOf(i: number): RequestKind {
  const k = i % 20;
  if (k < 14) return "get";
  if (k < 18) return "search";
  return k === 18 ? "create" : "action";
}

const TIMEOUT_MS = 10_000;

const round = (n: number) => Math.round(n * 100) / 100;

export async function runOpenLoop(job: OpenLoopJob): Promise<OpenLoopStats> {
  if (job.warmupSec) await runWindow({ ...job, durationSec: job.warmupSec, runId: `${job.runId}w` });
  return runWindow(job);
}

async function runWindow(job: OpenLoopJob): Promise<OpenLoopStats> {
  const pool = new Http1Pool(job.baseUrl);
  const format = requestFormatter(job.baseUrl, job.headers);
  const latencies: number[] = [];
  const kindLatencies: Record<RequestKind, number[]> = { get: [], search: [], create: [], action: [] };
  const statusCodes: Record<string, number> = {};
  /** Jobs this run created and has not started yet (the actions' targets). */
  const created: string[] = [];
  const searchRequest = format(
    "POST",
    "/api/pickjobs/search",
    JSON.stringify(pickJobSearchBody(job.seed.facilityId)),
  );
  const startBody = JSON.stringify({ name: "START", version: 1 });
  let scheduled = 0;
  let completed = 0;
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  let gaveUp = 0;
  let inFlight = 0;
  let creates = 0;

  function request(i: number, due: number): Promise<void> {
    let kind = kindOf(i);
    if (kind === "action" && created.length === 0) kind = "create";
    let req: Buffer;
    if (kind === "get") req = format("GET", `/api/pickjobs/${job.seed.ids[i % job.seed.ids.length]}`);
    else if (kind === "search") req = searchRequest;
    else if (kind === "create") {
      req = format(
        "POST",
        "/api/pickjobs",
        JSON.stringify({ ...pickJobBody(job.seed.facilityId), tenantOrderId: `M-${job.runId}-${creates++}` }),
      );
    } else req = format("POST", `/api/pickjobs/${created.shift()}/actions`, startBody);
    return pool.request(req, { wantBody: kind === "create", timeoutMs: TIMEOUT_MS }).then(
      (res) => {
        const ms = performance.now() - due;
        statusCodes[res.status] = (statusCodes[res.status] ?? 0) + 1;
        completed++;
        latencies.push(ms);
        kindLatencies[kind].push(ms);
        if (res.status >= 200 && res.status < 300) {
          ok++;
          if (kind === "create") created.push(JSON.parse(res.body.toString()).id);
        } else non2xx++;
      },
      () => {
        errors++;
      },
    );
  }

  const outstanding = new Set<Promise<void>>();
  const start = performance.now();
  const intervalMs = 1000 / job.rate;
  const total = Math.round(job.rate * job.durationSec);
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (scheduled < total && start + scheduled * intervalMs <= now) {
        const i = scheduled++;
        const due = start + i * intervalMs;
        if (inFlight >= job.maxInFlight) {
          gaveUp++;
          continue;
        }
        inFlight++;
        const p = request(i, due).finally(() => {
          inFlight--;
          outstanding.delete(p);
        });
        outstanding.add(p);
      }
      if (scheduled >= total) {
        clearInterval(timer);
        done();
      }
    };
    const timer = setInterval(tick, 1);
  });
  await Promise.all(outstanding);
  pool.close();
  latencies.sort((a, b) => a - b);
  const byKind = Object.fromEntries(
    Object.entries(kindLatencies).map(([k, xs]) => [
      k,
      {
        count: xs.length,
        p99Ms: round(
          percentile(
            xs.sort((a, b) => a - b),
            99,
          ),
        ),
      },
    ]),
  ) as OpenLoopStats["byKind"];
  return {
    rate: job.rate,
    durationSec: job.durationSec,
    scheduled,
    completed,
    ok,
    non2xx,
    errors,
    gaveUp,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies[latencies.length - 1] ?? Number.NaN),
    byKind,
    statusCodes,
  };
}
