/**
 * A steady mixed load for the chaos and soak runs: one tenant's reads and writes, open loop (sent
 * on a fixed schedule whatever is still outstanding), every outcome recorded with its time, so a
 * fault's effect can be read off per phase: which requests failed and how, and which writes the
 * API acknowledged (a 201 with the new id), each of which must survive every fault.
 *
 * Per 10 requests: 5 `GET /api/pickjobs/{id}` and 2 `GET /api/categories/{id}` over what this run
 * created, 2 `POST /api/pickjobs` and 1 `POST /api/categories` (a read before anything exists is a
 * write instead). Requests go over the runtime's fetch (keep-alive connections, several at once, so
 * a balancer in front of several gateways spreads them).
 */
import { facilityAddress, pickJobBody } from "../support/fixtures.ts";
import type { System } from "../support/system.ts";

export type Kind = "get-pickjob" | "get-category" | "create-pickjob" | "create-category";

export interface Outcome {
  kind: Kind;
  /** Scheduled send time (ms since the epoch). */
  at: number;
  /** Answer time minus `at`. */
  ms: number;
  /** HTTP status; 0: the connection failed; -1: no answer within the timeout. */
  status: number;
  /** The created entity's id, for an acknowledged write. */
  id?: string;
}

export interface TrafficOptions {
  baseUrl: string;
  token: string;
  facilityId: string;
  /** Requests per second. */
  rate: number;
  /** A request unanswered for this long counts as -1 (and is aborted). */
  timeoutMs?: number;
  /** Requests outstanding at most: one due beyond that is not sent and counts as -1. */
  maxInFlight?: number;
}

const MIX: Kind[] = [
  "get-pickjob",
  "create-pickjob",
  "get-pickjob",
  "get-category",
  "get-pickjob",
  "create-category",
  "get-pickjob",
  "create-pickjob",
  "get-category",
  "get-pickjob",
];

export class Traffic {
  readonly outcomes: Outcome[] = [];
  /** Acknowledged writes: ids the API answered 201 for. */
  readonly pickJobs: string[] = [];
  readonly categories: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private n = 0;
  private readonly opts: Required<TrafficOptions>;

  constructor(opts: TrafficOptions) {
    this.opts = { timeoutMs: 15_000, maxInFlight: 4096, ...opts };
  }

  start(): void {
    const interval = 1000 / this.opts.rate;
    let next = Date.now();
    const tick = () => {
      const now = Date.now();
      while (next <= now) {
        this.send(next);
        next += interval;
      }
      this.timer = setTimeout(tick, Math.max(1, next - Date.now()));
    };
    tick();
  }

  /** Stops sending and waits for every outstanding request. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([...this.inFlight]);
  }

  private pick<T>(list: T[]): T | undefined {
    return list.length ? list[Math.floor(Math.random() * list.length)] : undefined;
  }

  private send(at: number): void {
    let kind = MIX[this.n++ % MIX.length]!;
    if (kind === "get-pickjob" && !this.pickJobs.length) kind = "create-pickjob";
    if (kind === "get-category" && !this.categories.length) kind = "create-category";
    if (this.inFlight.size >= this.opts.maxInFlight) {
      this.outcomes.push({ kind, at, ms: 0, status: -1 });
      return;
    }
    const p = this.request(kind, at).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  private async request(kind: Kind, at: number): Promise<void> {
    const { baseUrl, token, facilityId, timeoutMs } = this.opts;
    const seq = this.n;
    const [method, path, body] =
      kind === "get-pickjob"
        ? ["GET", `/api/pickjobs/${this.pick(this.pickJobs)}`]
        : kind === "get-category"
          ? ["GET", `/api/categories/${this.pick(this.categories)}`]
          : kind === "create-pickjob"
            ? ["POST", "/api/pickjobs", pickJobBody(facilityId, { tenantOrderId: `chaos-${at}-${seq}` })]
            : ["POST", "/api/categories", { nameLocalized: { en_US: `chaos ${at}-${seq}` } }];
    let status: number;
    let id: string | undefined;
    try {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      const text = await res.text();
      if (method === "POST" && status === 201) id = (JSON.parse(text) as { id: string }).id;
    } catch (err) {
      status = (err as Error).name === "TimeoutError" ? -1 : 0;
    }
    this.outcomes.push({ kind, at, ms: Date.now() - at, status, ...(id ? { id } : {}) });
    if (id) (kind === "create-pickjob" ? this.pickJobs : this.categories).push(id);
  }
}

/** Statuses of the outcomes in [from, to) that were not 2xx, counted: e.g. { "503": 4, "-1": 1 }. */
export function failures(
  outcomes: Outcome[],
  from = 0,
  to = Number.POSITIVE_INFINITY,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) {
    if (o.at < from || o.at >= to || (o.status >= 200 && o.status < 300)) continue;
    out[o.status] = (out[o.status] ?? 0) + 1;
  }
  return out;
}

/**
 * The load of a chaos or soak run on `sys`: a facility of `tenant` (and, given `webhookUrl`, a
 * PICK_JOB_CREATED webhook subscription to it) and the Traffic over them, not yet started; the
 * requests carry `user`'s token.
 */
export async function tenantTraffic(
  sys: System,
  opts: { tenant: string; user: string; facilityName: string; rate: number; webhookUrl?: string },
): Promise<Traffic> {
  const token = await sys.token(opts.tenant, { user: opts.user });
  const api = sys.as(token);
  const facility = await api("POST", "/api/facilities", {
    name: opts.facilityName,
    address: facilityAddress,
  });
  if (facility.status !== 201) throw new Error(`facility: ${facility.status} ${facility.text}`);
  if (opts.webhookUrl) {
    const sub = await api("POST", "/api/subscriptions", {
      name: opts.tenant,
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl: opts.webhookUrl },
    });
    if (sub.status !== 201) throw new Error(`subscription: ${sub.status} ${sub.text}`);
  }
  return new Traffic({ baseUrl: sys.baseUrl, token, facilityId: facility.body.id, rate: opts.rate });
}
