/**
 * onRequest: bearer token -> request context (401), then the route's permissions (403).
 *
 * Whether a request needs a token is decided by the route it matched, never by the URL's text:
 * every route needs one unless it says `auth: false` (health, metrics, docs, preflights). A request
 * that matched no route needs none: it gets its 404 either way.
 */
import { AppError } from "@fop/kit/errors";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Principal } from "../auth.ts";
import { parseClientApp } from "../client-agent.ts";
import { permissionDenied } from "../permissions.ts";
import { requestSpan } from "./tracing.ts";
import "./types.ts";

export function installAuth(
  app: FastifyInstance,
  verify: (token: string) => Promise<Principal>,
  opts: {
    /**
     * Benchmarks only (FOP_ABLATE=auth): the first request's token is verified as always, and its
     * context then serves every later request without looking at its header.
     */
    ablated?: boolean;
  } = {},
): void {
  app.decorateRequest("ctx", undefined as never);
  const authenticate = async (req: FastifyRequest) => {
    const route = req.routeOptions.url;
    const config = req.routeOptions.config;
    if (route === undefined || config.auth === false) return;
    const header = req.headers.authorization ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw new AppError("unauthenticated", {
        code: "MISSING_TOKEN",
        description: "Send `Authorization: Bearer <ACCESS_TOKEN>`.",
      });
    }
    const p = await verify(match[1]!);
    const app = parseClientApp(req.headers["x-user-agent"]);
    if (app) {
      req.clientApp = app;
      requestSpan(req)?.setAttributes({
        "fop.client.app.name": app.name,
        "fop.client.app.version": app.version,
      });
    }
    const rawInfo = app ? `${app.name}/${app.version}` : (req.headers["user-agent"] ?? "");
    req.ctx = {
      tenant: p.tenant,
      // The verifier's cached object, the same for every request with this token (the kit encodes
      // its context headers once per principal object).
      principal: p,
      client: { api: route.startsWith("/graphql") ? "GRAPHQL" : "REST", rawInfo },
    };
    const missing = (config.permissions ?? []).filter((perm) => !p.permissions.includes(perm));
    if (missing.length > 0) throw permissionDenied(missing);
  };
  if (!opts.ablated) {
    app.addHook("onRequest", authenticate);
    return;
  }
  let fixed: FastifyRequest["ctx"] | undefined;
  app.addHook("onRequest", async (req) => {
    if (fixed) {
      req.ctx = fixed;
      return;
    }
    await authenticate(req);
    fixed = req.ctx;
  });
}
