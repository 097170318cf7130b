/**
 * buildGateway(deps): the fastify app with every cross-cutting concern installed in order (tracing,
 * errors, auth, rate limit, lifecycle headers, URNs, OpenAPI) and the routes. It never listens.
 */
import type { Ablation } from "@fop/kit/ablation";
import type { Logger } from "@fop/kit/logger";
import type { Metrics } from "@fop/kit/metrics";
import { validators } from "@fop/kit/schemas/validators";
import { type FastifyInstance, fastify, LogController } from "fastify";
import type { Principal } from "./auth.ts";
import { type GraphqlOptions, installGraphql } from "./graphql/plugin.ts";
import { type AdmissionOptions, installAdmission } from "./plugins/admission.ts";
import { installAuth } from "./plugins/auth.ts";
import { installErrorHandling, sendError } from "./plugins/errors.ts";
import { type CorsOptions, installHeaders } from "./plugins/headers.ts";
import { installJsonParser } from "./plugins/json.ts";
import { installLifecycleHeaders } from "./plugins/lifecycle.ts";
import { installMetrics } from "./plugins/metrics.ts";
import { installOpenApi } from "./plugins/openapi.ts";
import { type ClusterRateLimitOptions, installRateLimit } from "./plugins/rate-limit.ts";
import { clientErrorHandler, installRequestChecks, rewriteTarget } from "./plugins/request.ts";
import { installRouteStatusRecorder } from "./plugins/route-statuses.ts";
import { installTracing } from "./plugins/tracing.ts";
import { installUrnResolution, type UrnResolver } from "./plugins/urn.ts";
import type { Clients } from "./routes/deps.ts";
import { registerRoutes } from "./routes/index.ts";

declare module "fastify" {
  interface FastifyInstance {
    /**
     * Starts the drain without closing: /readyz answers 503 and every response closes its
     * connection; requests are still served (main.ts, on SIGTERM, before close()).
     */
    beginDrain(): void;
  }
}

export interface GatewayDeps {
  logger: Logger;
  /** Benchmarks only: layers turned off (@fop/kit/ablation); production passes none. */
  ablation?: Ablation | undefined;
  metrics: Metrics;
  clients: Clients;
  verify: (token: string) => Promise<Principal>;
  resolveUrn: UrnResolver;
  /** Names of the services the gateway routes to and whether each answers. */
  checkServices: () => Promise<Record<string, boolean>>;
  rateLimit?: ClusterRateLimitOptions | undefined;
  /** Load shedding (default: no bound). */
  admission?: AdmissionOptions | undefined;
  publicUrl: string;
  cors?: CorsOptions | undefined;
  graphql?: GraphqlOptions | undefined;
  /** Tests: append each distinct `METHOD route status` answered under /api to this file. */
  recordRouteStatuses?: string | undefined;
}

export async function buildGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = fastify({
    loggerInstance: deps.logger,
    // One line per request is logged by our onResponse hook, with tenant, route and trace id.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    trustProxy: true,
    routerOptions: { maxParamLength: 2048 },
    // Draining (close(): SIGTERM), a request that still arrives on an open connection is answered,
    // not refused with a 503 (its connection is closed after the response).
    return503OnClosing: false,
    // Absolute-form targets naming us are served as their path; others are refused (request.ts).
    rewriteUrl: rewriteTarget(deps.publicUrl),
    // Requests Node's parser refuses, and router-level errors (bad URL encoding, over-long
    // parameters), get the platform's error body too.
    clientErrorHandler,
    frameworkErrors: (error, _req, reply) =>
      sendError(reply, error.statusCode && error.statusCode < 500 ? error.statusCode : 400, [
        {
          summary: "The request is invalid.",
          description: "The path could not be read (invalid percent-encoding or a parameter too long).",
          code: "BAD_REQUEST",
        },
      ]),
  }) as unknown as FastifyInstance;
  installJsonParser(app);
  const ablated = deps.ablation ?? new Set();
  if (ablated.has("validation")) {
    // Benchmarks only: every part passes unchecked (and is left as sent).
    app.setValidatorCompiler(() => () => true);
  } else {
    const ajv = validators();
    app.setValidatorCompiler(({ schema, httpPart }) =>
      httpPart === "body" ? ajv.body(schema) : ajv.text.compile(schema),
    );
  }
  // Benchmarks only: JSON.stringify instead of each response schema's compiled serializer (the
  // routes with their own, plainJson, use JSON.stringify already).
  if (ablated.has("serialization")) app.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));

  installTracing(app);
  installErrorHandling(app);
  installRequestChecks(app);
  installHeaders(app, deps.cors ?? { allowedOrigins: [] });
  installAdmission(app, deps.admission ?? { maxInFlight: 0 }, { metrics: deps.metrics });
  installAuth(app, deps.verify, { ablated: ablated.has("auth") });
  if (deps.rateLimit) installRateLimit(app, deps.rateLimit, { logger: deps.logger, metrics: deps.metrics });
  installLifecycleHeaders(app);
  installUrnResolution(app, deps.resolveUrn);
  installMetrics(app, deps.metrics);
  if (deps.recordRouteStatuses) installRouteStatusRecorder(app, deps.recordRouteStatuses);
  app.addHook("onResponse", async (req, reply) => {
    // The access log is an info line: below that (LOG_LEVEL=warn) none of its work is done.
    if (!deps.logger.isLevelEnabled("info")) return;
    const route = req.routeOptions.url ?? "unmatched";
    const ms = reply.elapsedTime;
    if (route.startsWith("/api/") || route.startsWith("/graphql")) {
      // The request's server span, as the kit logger names trace context fields (absent with tracing off).
      const [, trace_id, span_id, trace_flags] = String(reply.getHeader("traceresponse") ?? "").split("-");
      req.log.info(
        {
          tenant: req.ctx?.tenant,
          method: req.method,
          route,
          status: reply.statusCode,
          ms: Math.round(ms * 100) / 100,
          trace_id,
          span_id,
          trace_flags,
          ...(req.clientApp ? { clientApp: `${req.clientApp.name}/${req.clientApp.version}` } : {}),
        },
        "request",
      );
    }
  });

  await installOpenApi(app, { publicUrl: deps.publicUrl });

  app.get("/healthz", { config: { auth: false } }, async () => ({ status: "ok" }));
  // Draining (beginDrain(), or close()): every response closes its connection, so keep-alive clients
  // open their next one elsewhere (and an idle connection does not hold the listener's close until
  // its timeout); /readyz says 503.
  let draining = false;
  app.decorate("beginDrain", () => {
    draining = true;
  });
  app.addHook("preClose", async () => {
    draining = true;
  });
  app.addHook("onSend", (_req, reply, payload, done) => {
    if (draining) reply.header("connection", "close");
    done(null, payload);
  });
  app.get("/readyz", { config: { auth: false } }, async (_req, reply) => {
    if (draining) return reply.code(503).send({ status: "draining" });
    const services = await deps.checkServices();
    const ready = Object.values(services).every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "not ready", services });
  });
  app.get("/metrics", { config: { auth: false } }, async (_req, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );

  registerRoutes(app, { clients: deps.clients, publicUrl: deps.publicUrl });
  await installGraphql(app, { clients: deps.clients, resolveUrn: deps.resolveUrn }, deps.graphql);
  return app;
}
