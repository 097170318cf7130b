/**
 * Response headers every answer carries, and CORS:
 *
 * - `X-Content-Type-Options: nosniff` on everything; `Cache-Control: no-store` on everything that
 *   needs a token (tenant data and its errors must not sit in shared or browser caches).
 * - CORS for the origins in CORS_ALLOWED_ORIGINS (exact origins, or `*`): simple responses carry
 *   `Access-Control-Allow-Origin` and expose our headers; preflights (`OPTIONS` with
 *   `Access-Control-Request-Method`) are answered 204 without a token. Bearer tokens travel in a
 *   header, never in cookies, so credentials are not allowed. Without the setting no origin is.
 * - The docs page's own CSP and frame options are set where the docs are registered (openapi.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export interface CorsOptions {
  /** Allowed origins (scheme://host[:port]); "*" allows any. Empty: CORS off. */
  allowedOrigins: readonly string[];
}

const ALLOW_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE";
const ALLOW_HEADERS = "Authorization, Content-Type, X-User-Agent, traceparent, tracestate";
const EXPOSE_HEADERS = "Location, Retry-After, Deprecation, Link, traceresponse, Content-Disposition";
const PREFLIGHT_MAX_AGE_S = "600";

/** Parses CORS_ALLOWED_ORIGINS: comma-separated origins; trailing slashes are ignored. */
export function parseAllowedOrigins(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((o) => o.trim().replace(/\/+$/, "").toLowerCase())
    .filter(Boolean);
}

function allowedOrigin(req: FastifyRequest, opts: CorsOptions): string | undefined {
  const origin = req.headers.origin;
  if (!origin || opts.allowedOrigins.length === 0) return undefined;
  if (opts.allowedOrigins.includes("*")) return "*";
  return opts.allowedOrigins.includes(origin.toLowerCase()) ? origin : undefined;
}

export function installHeaders(app: FastifyInstance, cors: CorsOptions): void {
  app.addHook("onSend", async (req, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    if (req.routeOptions.config?.auth !== false) reply.header("cache-control", "no-store");
    const origin = allowedOrigin(req, cors);
    if (origin) {
      reply.header("access-control-allow-origin", origin);
      reply.header("access-control-expose-headers", EXPOSE_HEADERS);
      if (origin !== "*") reply.header("vary", "Origin");
    }
    return payload;
  });

  // Preflights: answered for any path, without a token (browsers never send one with them).
  app.options(
    "/*",
    { config: { auth: false }, schema: { hide: true } },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const origin = allowedOrigin(req, cors);
      if (origin && req.headers["access-control-request-method"]) {
        reply
          .header("access-control-allow-methods", ALLOW_METHODS)
          .header("access-control-allow-headers", ALLOW_HEADERS)
          .header("access-control-max-age", PREFLIGHT_MAX_AGE_S);
      }
      reply.header("allow", ALLOW_METHODS);
      return reply.code(204).send();
    },
  );
}
