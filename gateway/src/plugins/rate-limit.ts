/**
 * Per-tenant token bucket (per gateway replica): `perSecond` sustained, `burst` at once. Over the
 * limit -> 429 with Retry-After, as the platform documents (clients back off exponentially).
 */
import { AppError } from "@fop/kit/errors";
import type { FastifyInstance } from "fastify";

export interface RateLimitOptions {
  perSecond: number;
  burst: number;
}

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly opts: RateLimitOptions;
  constructor(opts: RateLimitOptions) {
    this.opts = opts;
  }

  /** Takes one token for `key`; returns 0 when allowed, else the seconds until one is available. */
  take(key: string, now = performance.now()): number {
    const b = this.buckets.get(key) ?? { tokens: this.opts.burst, at: now };
    b.tokens = Math.min(this.opts.burst, b.tokens + ((now - b.at) / 1000) * this.opts.perSecond);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.opts.perSecond));
  }
}

export function installRateLimit(app: FastifyInstance, opts: RateLimitOptions): void {
  const buckets = new TokenBuckets(opts);
  // Registered after auth: keyed by the authenticated tenant.
  app.addHook("onRequest", async (req, reply) => {
    if (!req.ctx) return;
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
