/**
 * A service's two listeners: Connect RPC (Connect, gRPC and gRPC-web protocols) on an h2c port, and
 * /healthz, /readyz, /metrics on a plain HTTP/1.1 admin port (what Kubernetes httpGet probes speak).
 */

import type { Http2Server, Http2ServerRequest, Http2ServerResponse } from "node:http2";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
} from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import { type FastifyInstance, fastify } from "fastify";
import { contextFromHeaders, type RequestContext, requestContextKey } from "../context.ts";
import { translateDbError } from "../db/tx.ts";
import { AppError, isAppError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Metrics } from "../metrics.ts";
import {
  currentTraceId,
  extractTraceContext,
  otelContext,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../otel.ts";
import { toConnectError } from "./errors.ts";

export interface ServiceRuntime {
  /** Service name, e.g. "catalog". */
  service: string;
  logger: Logger;
  metrics: Metrics;
  /** Whether the service can serve (database reachable, ...). */
  ready: () => Promise<boolean>;
}

const HEALTH = Health.typeName;

/** The h2c fastify instance serving Connect. */
export type RpcServer = FastifyInstance<Http2Server, Http2ServerRequest, Http2ServerResponse>;

/** The request context the kit's interceptor attached to this call. */
export function requestContext(hctx: HandlerContext): RequestContext {
  const ctx = hctx.values.get(requestContextKey);
  if (!ctx)
    throw new AppError("internal", { code: "CONTEXT_MISSING", description: "request context missing" });
  return ctx;
}

/** Server span per RPC, child of the caller's traceparent; the handler runs inside it. */
function traceInterceptor(): Interceptor {
  return (next) => async (req) => {
    const parent = extractTraceContext(req.header);
    const span = tracer().startSpan(
      `${req.service.typeName}/${req.method.name}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "connect_rpc",
          "rpc.service": req.service.typeName,
          "rpc.method": req.method.name,
        },
      },
      parent,
    );
    try {
      return await otelContext.with(otelTrace.setSpan(parent, span), () => next(req));
    } catch (err) {
      const ce = ConnectError.from(err);
      span.setAttribute("rpc.connect_rpc.error_code", Code[ce.code] ?? String(ce.code));
      if (ce.code === Code.Internal || ce.code === Code.Unknown)
        span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  };
}

/** One log line and one histogram sample per call. */
function observeInterceptor(rt: ServiceRuntime): Interceptor {
  return (next) => async (req) => {
    const start = process.hrtime.bigint();
    let outcome = "ok";
    try {
      return await next(req);
    } catch (err) {
      outcome = Code[ConnectError.from(err).code] ?? "unknown";
      throw err;
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const operation = `${req.service.typeName}/${req.method.name}`;
      rt.metrics.requestDuration.observe({ operation, outcome }, seconds);
      if (req.service.typeName !== HEALTH) {
        rt.logger.info(
          {
            rpc: operation,
            tenant: req.contextValues.get(requestContextKey)?.tenant,
            outcome,
            ms: seconds * 1000,
          },
          "rpc",
        );
      }
    }
  };
}

/** AppError -> ConnectError with detail; anything unexpected is logged and answered generically. */
function errorInterceptor(rt: ServiceRuntime): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (err) {
      const known = translateDbError(err);
      if (isAppError(known)) {
        if (known.kind === "internal") rt.logger.error({ err }, "internal error");
        throw toConnectError(known);
      }
      if (err instanceof ConnectError) throw err;
      rt.logger.error({ err, rpc: `${req.service.typeName}/${req.method.name}` }, "unhandled error");
      throw new ConnectError("An internal error occurred.", Code.Internal);
    }
  };
}

/** Tenant, principal and client from the gateway's headers, for every RPC but health checks. */
function contextInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== HEALTH) {
      req.contextValues.set(requestContextKey, contextFromHeaders(req.header, currentTraceId()));
    }
    return next(req);
  };
}

/** Builds (does not listen) the h2c RPC server with the kit's interceptors and the health service. */
export async function buildRpcServer(
  rt: ServiceRuntime,
  routes: (router: ConnectRouter) => void,
): Promise<RpcServer> {
  const app = fastify({ http2: true, logger: false, bodyLimit: 8 * 1024 * 1024 });
  // connect-node 2.2.0 waits for an 'end' event Node responses never emit; without this the handler
  // promise never settles and the server span never ends (STACK.md trap 2).
  app.addHook("onRequest", (_req, reply, done) => {
    reply.raw.once("finish", () => reply.raw.emit("end"));
    done();
  });
  await app.register(fastifyConnectPlugin, {
    interceptors: [traceInterceptor(), observeInterceptor(rt), errorInterceptor(rt), contextInterceptor()],
    shutdownTimeoutMs: 5_000,
    routes(router) {
      routes(router);
      router.service(Health, {
        async check() {
          const ok = await rt.ready().catch(() => false);
          return {
            status: ok
              ? HealthCheckResponse_ServingStatus.SERVING
              : HealthCheckResponse_ServingStatus.NOT_SERVING,
          };
        },
      });
    },
  });
  return app;
}

/**
 * Builds the HTTP/1.1 admin server: /healthz (process up), /readyz (dependencies up), /metrics and,
 * when given, /dead-letters (events the service's consumers gave up on, newest first).
 */
export function buildAdminServer(
  rt: Pick<ServiceRuntime, "ready" | "metrics">,
  deadLetters?: () => Promise<unknown[]>,
): FastifyInstance {
  const app = fastify({ logger: false });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const ok = await rt.ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ready" : "not ready" });
  });
  app.get("/metrics", async (_req, reply) =>
    reply.type(rt.metrics.registry.contentType).send(await rt.metrics.registry.metrics()),
  );
  if (deadLetters) app.get("/dead-letters", async () => ({ deadLetters: await deadLetters() }));
  return app;
}
