/**
 * A steady mixed load for the chaos and soak runs: one tenant's reads and writes, open loop (sent
 * on a fixed schedule whatever is still outstanding), every outcome recorded with its time, so a
 * fault's effect can be read off per phase: which requests failed and how, and which writes the
 * API acknowledged (a 201 with the new id), each of which must survive every fault.
 *
 * Per 10 requests: 5 `GET /api/pickjobs/{id}` and 2 `GET /api/categories/{id}` over what this run
 * created, 2 `POST /api/pickjobs` and 1 `POST /api/categories` (a read before anything exists is a
 * write instead). Requests go over node:http's keep-alive pool (several connections at once, so a
 * balancer in front of several gateways spreads them).
 */
import http from "node:http";
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
  /**
   * Keep-alive connections, as a client's pool keeps them (node:http, which costs this process a
   * fraction of what fetch does: at 100 requests/s fetch alone took a fifth of its CPU, and a new
   * connection for each request beyond the idle ones). Up to 2,048 at once: well beyond what the
   * gateways admit together (MAX_IN_FLIGHT 256 each), so under overload it is their 503 that answers
   * the excess at once, as it would for many clients. (At 512, exactly what two gateways admit, the
   * excess queued in this pool instead, first in first out: once that queue was 15 s long every
   * request timed out just as it got a connection, and none succeeded for minutes.)
   */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 2048 });

  constructor(opts: TrafficOptions) {
    this.opts = { timeoutMs: 15_000, maxInFlight: 4096, ...opts };
  }

  /** Starts the open-loop load at `rate` requests per second (default: the options'). */
  start(rate = this.opts.rate): void {
    const interval = 1000 / rate;
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

  /** Requests sent and not answered yet. */
  get outstanding(): number {
    return this.inFlight.size;
  }

  /** Stops sending and waits for every outstanding request. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([...this.inFlight]);
    this.agent.destroy();
  }

  private pick<T>(list: T[]): T | undefined {
    return list.length ? list[Math.floor(Math.random() * list.length)] : undefined;
  }

  /**
   * What the system carries of this mix here and now: `concurrency` clients, each sending its next
   * request when its last was answered, for `ms`; 2xx answers per second. (The outcomes are recorded
   * as the load's are: the writes it got acknowledged must survive too.)
   */
  async capacity(concurrency: number, ms: number): Promise<number> {
    const until = Date.now() + ms;
    let ok = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) {
          const status = await this.request(this.nextKind(), Date.now());
          if (status >= 200 && status < 300) ok++;
        }
      }),
    );
    return ok / (ms / 1000);
  }

  private nextKind(): Kind {
    const kind = MIX[this.n++ % MIX.length]!;
    if (kind === "get-pickjob" && !this.pickJobs.length) return "create-pickjob";
    if (kind === "get-category" && !this.categories.length) return "create-category";
    return kind;
  }

  private send(at: number): void {
    const kind = this.nextKind();
    if (this.inFlight.size >= this.opts.maxInFlight) {
      this.outcomes.push({ kind, at, ms: 0, status: -1 });
      return;
    }
    const p: Promise<void> = this.request(kind, at)
      .then(() => {})
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Sends one request of `kind` (scheduled at `at`), records its outcome; its status. */
  private async request(kind: Kind, at: number): Promise<number> {
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
    const payload = body ? JSON.stringify(body) : undefined;
    const { status, text } = await exchange(this.agent, `${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload
          ? { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) }
          : {}),
      },
      ...(payload ? { body: payload } : {}),
      timeoutMs,
    });
    const id = method === "POST" && status === 201 ? (JSON.parse(text) as { id: string }).id : undefined;
    this.outcomes.push({ kind, at, ms: Date.now() - at, status, ...(id ? { id } : {}) });
    if (id) (kind === "create-pickjob" ? this.pickJobs : this.categories).push(id);
    return status;
  }
}

/**
 * One request over `agent`: its status and body; status 0 when the connection failed, -1 when no
 * answer came within `timeoutMs` of sending (time waiting for a connection of the pool included).
 */
function exchange(
  agent: http.Agent,
  url: string,
  opts: { method: string; headers: http.OutgoingHttpHeaders; body?: string; timeoutMs: number },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (status: number, text = "") => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ status, text });
    };
    const req = http.request(url, { method: opts.method, headers: opts.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => finish(res.statusCode ?? 0, Buffer.concat(chunks).toString()));
      res.on("error", () => finish(0));
    });
    const timer = setTimeout(() => {
      finish(-1);
      req.destroy();
    }, opts.timeoutMs);
    req.on("error", () => finish(0));
    req.end(opts.body);
  });
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
