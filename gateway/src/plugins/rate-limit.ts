/**
 * The per-tenant rate limit, one for the cluster: `perSecond` sustained and `burst` at once over all
 * gateway replicas together. Over the limit -> 429 with Retry-After, as the platform documents
 * (clients back off exponentially). Decided in-process per request (rate-limit/token-buckets.ts);
 * the replicas exchange what they took every `sync.intervalMs` over core NATS
 * (rate-limit/nats-sync.ts). Without NATS it fails open: each replica limits on its own counts,
 * counted in fop_rate_limit_unsynced_requests_total.
 *
 * Why not @fastify/rate-limit with a shared store (STYLE.md 11): its stores are a round trip per
 * request (Redis, which the platform does not run; a custom one on Postgres or NATS KV), and its
 * fixed window has no separate burst. Measured on this machine's loopback (2 cores, shared), 3000
 * sequential round trips each: a Postgres upsert (`insert ... on conflict do update ... returning`)
 * 290-700 us, a NATS request/reply 190-480 us; NATS KV would need two (get, then a CAS update).
 * Over a pod network more, and the limit would depend on the store being up. The budget is 50 us
 * per request. Here (rate-limit/token-buckets.bench.ts, same machine, loaded): `take` 0.06-0.2 us;
 * with the exchange's work (ticks, decoding and merging every peer's report) shared out over the
 * requests, 0.6-1 us at 3 replicas and 6.6-15 us at 20 (2,000 requests/s per replica, each request
 * of a tenant not yet seen in its interval: the most entries the reports can carry).
 */
import { AppError } from "@fop/kit/errors";
import type { Logger } from "@fop/kit/logger";
import { counter, METRICS, type Metrics } from "@fop/kit/metrics";
import type { FastifyInstance } from "fastify";
import { type RateLimitSync, startRateLimitSync } from "../rate-limit/nats-sync.ts";
import { type RateLimitOptions, TokenBuckets } from "../rate-limit/token-buckets.ts";

export type { RateLimitOptions } from "../rate-limit/token-buckets.ts";

export interface ClusterRateLimitOptions extends RateLimitOptions {
  /** The exchange between replicas; without it the limit is this replica's alone. */
  sync?: { url: string; subject: string; intervalMs: number } | undefined;
}

/** Without an exchange, how often idle tenants' buckets are dropped. */
const LOCAL_TICK_MS = 1_000;

export function installRateLimit(
  app: FastifyInstance,
  opts: ClusterRateLimitOptions,
  deps: { logger: Logger; metrics: Metrics },
): void {
  const intervalMs = opts.sync?.intervalMs ?? LOCAL_TICK_MS;
  const buckets = new TokenBuckets({ perSecond: opts.perSecond, burst: opts.burst, intervalMs });
  const unsynced = counter(deps.metrics, METRICS.rateLimitUnsynced);
  let sync: RateLimitSync | undefined;
  if (opts.sync)
    sync = startRateLimitSync({
      url: opts.sync.url,
      subject: opts.sync.subject,
      logger: deps.logger,
      onReport: (peer, report) => buckets.merge(peer, report),
    });
  const timer = setInterval(() => {
    const report = buckets.tick();
    sync?.publish(report);
  }, intervalMs);
  timer.unref();
  app.addHook("onClose", async () => {
    clearInterval(timer);
    await sync?.close();
  });

  // Registered after auth: keyed by the authenticated tenant.
  app.addHook("onRequest", async (req, reply) => {
    if (!req.ctx) return;
    if (sync && !sync.up) unsynced.inc();
    const wait = buckets.take(req.ctx.tenant);
    if (wait > 0) {
      reply.header("retry-after", String(wait));
      throw new AppError("rate_limited", {
        code: "RATE_LIMITED",
        description: `Tenant request limit of ${opts.perSecond}/s exceeded; retry after ${wait}s with exponential backoff.`,
      });
    }
  });
}
