/**
 * One rate limit for the cluster, decided locally: a per-tenant token bucket (`perSecond`
 * sustained, `burst` at once) kept by every gateway replica, where every replica subtracts the
 * tokens the OTHER replicas took (their reports, every `intervalMs`) from its own bucket too. Each
 * replica's bucket is thus the cluster's bucket, late by at most one report; it may go negative
 * (the others took what this replica had counted as free), and the tenant is then refused until
 * the refill has paid the debt back. Since every token taken anywhere is eventually subtracted
 * everywhere, the cluster's sustained rate converges to `perSecond` whatever the replica count.
 *
 * What a report has not told yet is estimated: a replica that knows k other replicas take for a
 * tenant (they reported requests of it recently) charges 1 + k tokens per request it accepts, as
 * if each of them were accepting as many as it does, and gives the extra k back at its next report
 * (when the others' real takes come in instead). So a burst spread over many replicas also ends near
 * `burst`, not at replicas x burst. A tenant a replica has no bucket for yet counts every live
 * replica (heard from within the peer window) as taking for it, until one interval has passed.
 *
 * Pure: no I/O, no timers; an injectable clock (ms). The plugin (plugins/rate-limit.ts) calls
 * `tick()` every `intervalMs` and publishes its report, and `merge()`s what the other replicas
 * publish (nats-sync.ts). A tick visits the buckets this replica used since the last one; every
 * {@link PEER_WINDOW_INTERVALS}th visits them all, forgetting peers not heard from within the window
 * and dropping each bucket that is full again and that nobody (this replica or a peer) used for the
 * window: memory holds the tenants of the last few seconds only.
 */

export interface RateLimitOptions {
  /** Sustained requests per second per tenant, over the whole cluster. */
  perSecond: number;
  /** Requests a tenant may send at once (the bucket's size). */
  burst: number;
}

export interface TokenBucketsOptions extends RateLimitOptions {
  /** How often `tick()` runs (and the replicas report), ms. */
  intervalMs: number;
  /** Milliseconds on a monotonic clock (default performance.now). */
  clock?: () => number;
}

/** One tenant in a replica's report: tokens it took and requests it saw since its previous report. */
export type ReportEntry = readonly [tenant: string, taken: number, requests: number];

/**
 * How many intervals a replica counts as live after its last report, and as taking for a tenant
 * after it last reported a request of it. Reports are due every interval; five leave room for a
 * busy event loop or a slow network without forgetting a peer.
 */
export const PEER_WINDOW_INTERVALS = 5;

interface Bucket {
  readonly tenant: string;
  /** The cluster's tokens as this replica knows them (<= burst; negative: a debt). */
  tokens: number;
  /** When `tokens` was last refilled. */
  at: number;
  /** When this replica made the bucket (its first interval: peers unknown). */
  born: number;
  /** Last request of the tenant, here or reported by a peer. */
  seen: number;
  /** Since the last tick: tokens this replica took, requests it saw. */
  taken: number;
  requests: number;
  /** Charged for the other replicas' estimated takes since the last tick; given back at the tick. */
  reserved: number;
  /** Peers that reported requests of this tenant, and when they last did. */
  peers: Map<string, number> | undefined;
  /** How many of them count as taking for it (`peers` within the window). */
  others: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  /** Buckets with requests since the last tick. */
  private active: Bucket[] = [];
  private ticks = 0;
  /** Live peers (other replicas) and when each last reported. */
  private readonly live = new Map<string, number>();
  private readonly perMs: number;
  private readonly burst: number;
  private readonly perSecond: number;
  private readonly intervalMs: number;
  private readonly windowMs: number;
  private readonly clock: () => number;

  constructor(opts: TokenBucketsOptions) {
    this.perSecond = opts.perSecond;
    this.perMs = opts.perSecond / 1000;
    this.burst = opts.burst;
    this.intervalMs = opts.intervalMs;
    this.windowMs = PEER_WINDOW_INTERVALS * opts.intervalMs;
    this.clock = opts.clock ?? (() => performance.now());
  }

  /** Tenants with a bucket now. */
  get size(): number {
    return this.buckets.size;
  }

  /** Other replicas heard from within the peer window. */
  get peers(): number {
    return this.live.size;
  }

  /** The tokens `tenant` has as this replica knows them (refilled to now); `burst` without a bucket. */
  balance(tenant: string): number {
    const b = this.buckets.get(tenant);
    if (!b) return this.burst;
    this.refill(b, this.clock());
    return b.tokens;
  }

  /**
   * One request of `tenant`: 0 when it may pass (a token taken), else the whole seconds until the
   * cluster's refill has brought its bucket back to one token (Retry-After).
   */
  take(tenant: string): number {
    const now = this.clock();
    const b = this.buckets.get(tenant) ?? this.add(tenant, now);
    this.refill(b, now);
    if (b.requests++ === 0) this.active.push(b);
    b.seen = now;
    if (b.tokens >= 1) {
      // The peers' share: the ones known to take for it, or, in a new bucket's first interval,
      // every live one (none has reported this tenant yet, which says nothing).
      const others = now - b.born < this.intervalMs ? Math.max(b.others, this.live.size) : b.others;
      b.tokens -= 1 + others;
      b.reserved += others;
      b.taken++;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  /**
   * Every `intervalMs`: this replica's report (the tenants it saw requests of since the last tick,
   * with the tokens it took), the estimated shares given back; every {@link PEER_WINDOW_INTERVALS}th
   * tick also forgets peers and drops idle buckets.
   */
  tick(): ReportEntry[] {
    const now = this.clock();
    const report: ReportEntry[] = [];
    for (const b of this.active) {
      this.refill(b, now);
      if (b.reserved) {
        b.tokens = Math.min(this.burst, b.tokens + b.reserved);
        b.reserved = 0;
      }
      report.push([b.tenant, b.taken, b.requests]);
      b.taken = 0;
      b.requests = 0;
    }
    this.active = [];
    const since = now - this.windowMs;
    for (const [peer, at] of this.live) if (at < since) this.live.delete(peer);
    if (++this.ticks % PEER_WINDOW_INTERVALS === 0) this.sweep(now, since);
    return report;
  }

  /** Peers of each tenant no longer within the window forgotten; full buckets idle for the window dropped. */
  private sweep(now: number, since: number): void {
    for (const [tenant, b] of this.buckets) {
      if (b.peers) {
        for (const [peer, at] of b.peers) if (at < since) b.peers.delete(peer);
        b.others = b.peers.size;
        if (b.others === 0) b.peers = undefined;
      }
      if (b.seen >= since || b.peers) continue;
      this.refill(b, now);
      // Full and unused for the window: the same as no bucket.
      if (b.tokens >= this.burst) this.buckets.delete(tenant);
    }
  }

  /** A peer's report (an empty one says that it is alive): its takes are the cluster's too. */
  merge(peer: string, report: readonly ReportEntry[]): void {
    const now = this.clock();
    this.live.set(peer, now);
    for (const [tenant, taken, requests] of report) {
      const b = this.buckets.get(tenant) ?? this.add(tenant, now);
      this.refill(b, now);
      b.tokens -= taken;
      if (requests > 0) {
        b.seen = now;
        b.peers ??= new Map();
        b.peers.set(peer, now);
        b.others = b.peers.size;
      }
    }
  }

  private add(tenant: string, now: number): Bucket {
    const b: Bucket = {
      tenant,
      tokens: this.burst,
      at: now,
      born: now,
      seen: now,
      taken: 0,
      requests: 0,
      reserved: 0,
      peers: undefined,
      others: 0,
    };
    this.buckets.set(tenant, b);
    return b;
  }

  private refill(b: Bucket, now: number): void {
    if (now > b.at) {
      b.tokens = Math.min(this.burst, b.tokens + (now - b.at) * this.perMs);
      b.at = now;
    }
  }
}
