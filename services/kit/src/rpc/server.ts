/**
 * A service's two listeners: Connect RPC (Connect, gRPC and gRPC-web protocols) on an h2c port, and
 * /healthz, /readyz, /metrics on a plain HTTP/1.1 admin port (what Kubernetes httpGet probes speak).
 */

import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import http2 from "node:http2";
import net, { type AddressInfo } from "node:net";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type HandlerContext,
  type Interceptor,
} from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import { type FastifyInstance, type FastifyReply, type FastifyRequest, fastify } from "fastify";
import { type RequestContext, requestContextKey } from "../context.ts";
import { translateDbError } from "../db/tx.ts";
import { DEADLINE_HEADER, deadlineExceeded, runInCall, serverDeadline } from "../deadline.ts";
import { AppError, isAppError } from "../errors.ts";
import { type EventConsumer, REPLAY_LIMIT } from "../events/consumer.ts";
import type { Logger } from "../logger.ts";
import { histogram, METRICS, type Metrics } from "../metrics.ts";
import {
  currentTraceId,
  extractTraceContext,
  otelContext,
  otelTrace,
  SpanKind,
  SpanStatusCode,
  tracer,
} from "../otel.ts";
import { callContext, type RpcTokenVerifier } from "./auth.ts";
import {
  type RpcServerRequest,
  type RpcServerResponse,
  recordUnaryRoutes,
  unaryFastPath,
} from "./connect-h2.ts";
import { grpcStatusName, toConnectError } from "./errors.ts";
import { REFLECTION_SERVICES, registerReflection } from "./reflection.ts";

export interface ServiceRuntime {
  /** Service name, e.g. "catalog". */
  service: string;
  logger: Logger;
  metrics: Metrics;
  /** Whether the service can serve (database reachable, ...). */
  ready: () => Promise<boolean>;
  /** Checks the bearer token every call but health checks and reflection carries (auth.ts). */
  verify: RpcTokenVerifier;
}

/** The services every process serves besides its own: health checks and server reflection. */
const INFRASTRUCTURE = new Set([Health.typeName, ...REFLECTION_SERVICES]);

/** The h2c server answering RPCs (see {@link buildRpcServer}). */
export interface RpcServer {
  /** The listener (the h2c server; with `http1`, the front that hands each connection to its protocol's server). */
  readonly server: net.Server;
  listen(opts: { host: string; port: number }): Promise<void>;
  /**
   * Drains: stops listening, sends GOAWAY on every session (clients open a new connection for
   * their next call), lets running unary calls finish, then ends streaming calls; resolves once
   * every session closed, at the latest after {@link RPC_SHUTDOWN_GRACE_MS} (then destroyed).
   */
  close(): Promise<void>;
}

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

/**
 * One histogram sample per call, and a log line at debug: the gateway writes the one access line
 * per request; a service's own line per call is for debugging (LOG_LEVEL=debug).
 */
function observeInterceptor(rt: ServiceRuntime): Interceptor {
  const duration = histogram(rt.metrics, METRICS.rpcServerDuration);
  return (next) => async (req) => {
    const start = process.hrtime.bigint();
    let outcome = "OK";
    try {
      return await next(req);
    } catch (err) {
      outcome = grpcStatusName(err);
      throw err;
    } finally {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const operation = `${req.service.typeName}/${req.method.name}`;
      duration.observe(
        { rpc_service: req.service.typeName, rpc_method: req.method.name, rpc_response_status_code: outcome },
        seconds,
      );
      if (!INFRASTRUCTURE.has(req.service.typeName) && rt.logger.isLevelEnabled("debug")) {
        rt.logger.debug(
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

/**
 * The caller's deadline (deadline.ts): a call whose deadline has passed before it starts is refused
 * without running; the rest runs in a scope that transactions check before they begin and commit.
 */
function deadlineInterceptor(): Interceptor {
  return (next) => async (req) => {
    const deadline = serverDeadline(req.header.get(DEADLINE_HEADER));
    if (deadline !== undefined && Date.now() >= deadline) throw deadlineExceeded();
    return runInCall({ deadline, signal: req.signal }, () => next(req));
  };
}

/**
 * Who calls (the bearer token, auth.ts) and for whom (tenant, principal, client), for every RPC but
 * health checks and server reflection (which describes the schema only, never a tenant's data). A
 * call without a valid token is refused before its handler runs.
 */
function contextInterceptor(verify: RpcTokenVerifier): Interceptor {
  return (next) => async (req) => {
    if (!INFRASTRUCTURE.has(req.service.typeName)) {
      const caller = await verify(req.header.get("authorization"));
      req.contextValues.set(requestContextKey, callContext(caller, req.header, currentTraceId()));
    }
    return next(req);
  };
}

/**
 * BENCHMARKS ONLY (FOP_ABLATE, ../ablation.ts): `http1` - the RPC port also accepts HTTP/1.1 (a
 * connection is HTTP/2 when it opens with the HTTP/2 preface, else HTTP/1.1), for a gateway that
 * calls over HTTP/1.1; `json` - unary Connect JSON calls take the fast path too (connect-h2.ts).
 */
export interface RpcServerOptions {
  http1?: boolean;
  json?: boolean;
}

/**
 * Builds (does not listen) the h2c RPC server with the kit's interceptors, the health service and
 * gRPC server reflection of everything it serves (reflection.ts). Unary Connect calls with a binary
 * body take connect-h2.ts's fast path; every other request (gRPC, gRPC-web, Connect JSON or GET,
 * compressed, streaming, so reflection's bidi streams too) connect-node's full handler, with the
 * same routes and interceptors.
 */
export async function buildRpcServer(
  rt: ServiceRuntime,
  routes: (router: ConnectRouter) => void,
  opts: RpcServerOptions = {},
): Promise<RpcServer> {
  const interceptors = [
    traceInterceptor(),
    observeInterceptor(rt),
    errorInterceptor(rt),
    deadlineInterceptor(),
    contextInterceptor(rt.verify),
  ];
  const shutdown = new AbortController();
  const recorded = recordUnaryRoutes((router) => {
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
    registerReflection(router);
  });
  const fallback = connectNodeAdapter({
    routes: recorded.routes,
    interceptors,
    shutdownSignal: shutdown.signal,
    readMaxBytes: RPC_BODY_LIMIT,
  });
  const handle = unaryFastPath(
    {
      unary: recorded.unary,
      interceptors,
      bodyLimit: RPC_BODY_LIMIT,
      shutdownSignal: shutdown.signal,
      json: opts.json === true,
    },
    fallback,
  );
  // Running unary calls (any protocol), so a drain can let them finish before it ends the streams.
  let unaryCalls = 0;
  let onNoUnaryCalls: (() => void) | undefined;
  const unaryEnded = () => {
    if (--unaryCalls === 0) onNoUnaryCalls?.();
  };
  const onRequest = (req: RpcServerRequest, res: RpcServerResponse) => {
    const url = req.url ?? "";
    const q = url.indexOf("?");
    if (recorded.unary.has(q < 0 ? url : url.slice(0, q))) {
      unaryCalls++;
      res.once("close", unaryEnded);
    }
    handle(req, res);
  };
  const h2 = http2.createServer(onRequest);
  // Benchmarks only: HTTP/1.1 connections on the same port (see RpcServerOptions).
  const h1 = opts.http1 ? http.createServer(onRequest) : undefined;
  // Idle keep-alive connections are closed by the client (its agent, after 5 min), never by the
  // server under a call the client is about to send (which would fail it: lost, not resent).
  if (h1) h1.keepAliveTimeout = 10 * 60_000;
  const h1Sockets = new Set<net.Socket>();
  const server = h1 ? sniffingListener(h2, h1, h1Sockets) : h2;
  // Open sessions, so close() can end them (an h2c client keeps its session open).
  const sessions = new Set<http2.ServerHttp2Session>();
  let closing: Promise<void> | undefined;
  h2.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
    if (closing) s.close(); // accepted as the listener closed
  });
  return {
    server,
    listen: ({ host, port }) =>
      new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      }),
    close: () => {
      closing ??= new Promise((resolve) => {
        const grace = setTimeout(() => {
          shutdown.abort();
          for (const s of sessions) s.destroy();
          for (const s of h1Sockets) s.destroy();
        }, RPC_SHUTDOWN_GRACE_MS);
        grace.unref();
        // No new connections: a client's next connection goes to another replica (or waits for
        // this one's successor, see connect-h2.ts).
        server.close(() => {
          clearTimeout(grace);
          resolve();
        });
        // GOAWAY to every client: the calls it sent so far run to the end; a stream it opens after
        // is refused (REFUSED_STREAM), which tells it the call did not run and may go elsewhere.
        for (const s of sessions) s.close();
        // Streaming calls (notification streams, reflection) run until told to stop: once the
        // unary calls are done, the shutdown signal tells them. (It would also abort the running
        // unary calls that connect-node's handler serves, so it waits for those.) HTTP/1.1
        // connections have no GOAWAY: they are closed once no call runs.
        const ended = () => {
          shutdown.abort();
          for (const s of h1Sockets) s.destroy();
        };
        if (unaryCalls === 0) ended();
        else onNoUnaryCalls = ended;
      });
      return closing;
    },
  };
}

/** The HTTP/2 connection preface's first bytes (RFC 9113 3.4); no HTTP/1.1 method starts so. */
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0");

/**
 * A listener handing each connection to `h2` when its first bytes are the HTTP/2 preface, else to
 * `h1` (whose sockets are kept in `h1Sockets` until they close). Benchmarks only.
 */
function sniffingListener(h2: http2.Http2Server, h1: http.Server, h1Sockets: Set<net.Socket>): net.Server {
  return net.createServer((socket) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, H2_PREFACE.length);
      const isH2 = head.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (isH2 && n < H2_PREFACE.length) return; // not decided yet
      socket.off("data", onData);
      socket.pause();
      socket.unshift(head);
      // The HTTP/2 session reads what is buffered and then the socket's handle itself (resuming
      // the socket here would take data from it); the HTTP/1.1 parser wants the socket flowing.
      if (isH2) h2.emit("connection", socket);
      else {
        h1Sockets.add(socket);
        socket.once("close", () => h1Sockets.delete(socket));
        h1.emit("connection", socket);
        socket.resume();
      }
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
}

/** Largest RPC request body (bytes). */
const RPC_BODY_LIMIT = 8 * 1024 * 1024;
/**
 * How long close() lets running calls finish: the gateway's calls have a 10 s deadline
 * (RPC_TIMEOUT_MS), after which their callers stopped waiting anyway.
 */
const RPC_SHUTDOWN_GRACE_MS = 10_000;

/** The port an RPC server listens on. */
export const rpcPort = (rpc: RpcServer): number => (rpc.server.address() as AddressInfo).port;

/** Whether a socket's peer is this host (IPv4, IPv6 or IPv4-mapped loopback). */
export const isLoopback = (address: string | undefined): boolean =>
  !!address && (address === "::1" || /^(::ffff:)?127\./.test(address));

/** The body of POST /dead-letters/replay. */
export interface ReplayRequest {
  consumer: string;
  /** Dead letter ids (`id` in GET /dead-letters); without, the consumer's oldest REPLAY_LIMIT. */
  ids?: string[];
}

/** `body` (the raw text) as a {@link ReplayRequest}, or what is wrong with it. */
export function parseReplayRequest(body: unknown): ReplayRequest | string {
  let value: unknown;
  try {
    value = typeof body === "string" && body.trim() ? JSON.parse(body) : undefined;
  } catch {
    return "The body is not JSON.";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "The body is not a JSON object.";
  // A misspelt field must not turn "these ids" into "all of them".
  const unknown = Object.keys(value).filter((k) => k !== "consumer" && k !== "ids");
  if (unknown.length) return `Unknown fields: ${unknown.join(", ")}.`;
  const { consumer, ids } = value as { consumer?: unknown; ids?: unknown };
  if (typeof consumer !== "string" || !consumer) return "consumer must be a consumer's name.";
  if (ids === undefined) return { consumer };
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === "string" && id))
    return "ids, when given, must be a non-empty list of dead letter ids (leave it out to replay all).";
  if (ids.length > REPLAY_LIMIT) return `ids names at most ${REPLAY_LIMIT} dead letters per call.`;
  return { consumer, ids };
}

/** An event consumer as the admin server sees it. */
export type DeadLetterReplayer = Pick<EventConsumer, "name" | "replayDeadLetters">;

const problem = (summary: string, description: string, code: string) => [{ summary, description, code }];

/**
 * Builds the HTTP/1.1 admin server: /healthz (process up), /readyz (dependencies up), /metrics and,
 * when given, GET /dead-letters (events the service's consumers gave up on, newest first) and, with
 * `consumers`, POST /dead-letters/replay (re-applies a consumer's dead letters, see
 * {@link ReplayRequest}; answers the consumer's ReplayReport). Probes and metrics are open (the kubelet
 * and Prometheus call them); dead letters carry event payloads and a replay changes data, so both
 * are served only to a caller sending `Authorization: Bearer <adminToken>`. Without `adminToken`
 * they are refused to everyone (fail closed: behind a sidecar proxy every caller is loopback),
 * unless `loopbackTrust` is set, which only a developer's machine does (`npm start`, the tests):
 * then a caller on this host is trusted.
 */
export function buildAdminServer(
  rt: Pick<ServiceRuntime, "ready" | "metrics">,
  deadLetters?: () => Promise<unknown[]>,
  opts: {
    adminToken?: string | undefined;
    loopbackTrust?: boolean;
    consumers?: readonly DeadLetterReplayer[];
  } = {},
): FastifyInstance {
  const app = fastify({ logger: false });
  // Errors in the platform's shape too; a failure during a replay (Postgres gone) leaves the row
  // being replayed as it was, so the call can simply be repeated.
  app.setErrorHandler((err: { statusCode?: number; message?: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    return reply
      .code(status)
      .send(
        status === 500
          ? problem("Internal error.", "The call failed; what it did so far is kept. Repeat it.", "INTERNAL")
          : problem("Malformed request.", err.message ?? "", "INVALID_REQUEST"),
      );
  });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_req, reply) => {
    const ok = await rt.ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? "ready" : "not ready" });
  });
  app.get("/metrics", async (_req, reply) =>
    reply.type(rt.metrics.registry.contentType).send(await rt.metrics.registry.metrics()),
  );
  const expected = opts.adminToken ? Buffer.from(`Bearer ${opts.adminToken}`) : undefined;
  const refusal = expected
    ? "Send Authorization: Bearer <ADMIN_TOKEN>."
    : opts.loopbackTrust
      ? "They are served on the service's own host only (ADMIN_LOOPBACK_TRUST), or with ADMIN_TOKEN set."
      : "ADMIN_TOKEN must be set for them to be served (then send Authorization: Bearer <ADMIN_TOKEN>); without it they are refused to every caller.";
  /** Refuses (403) a caller that may not see dead letters; runs before the body is read. */
  const adminOnly = async (req: FastifyRequest, reply: FastifyReply) => {
    const sent = Buffer.from(req.headers.authorization ?? "");
    const allowed = expected
      ? sent.length === expected.length && timingSafeEqual(sent, expected)
      : opts.loopbackTrust === true && isLoopback(req.socket.remoteAddress);
    if (allowed) return;
    return reply
      .code(403)
      .send(problem("Dead letters are not served to this caller.", refusal, "ADMIN_ONLY"));
  };
  if (deadLetters) {
    app.get("/dead-letters", { onRequest: adminOnly }, async () => ({ deadLetters: await deadLetters() }));
  }
  const consumers = opts.consumers;
  if (consumers) {
    app.register(async (scope) => {
      // Any content type (curl -d sends a form's): the body is read as text and must be JSON.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", { parseAs: "string", bodyLimit: 256 * 1024 }, (_req, body, done) =>
        done(null, body),
      );
      scope.post("/dead-letters/replay", { onRequest: adminOnly }, async (req, reply) => {
        const request = parseReplayRequest(req.body);
        if (typeof request === "string") {
          return reply
            .code(400)
            .send(
              problem(
                "Malformed request.",
                `${request} Send {"consumer": "<name>", "ids": ["<dead letter id>", ...]} (ids optional: all).`,
                "INVALID_REQUEST",
              ),
            );
        }
        const consumer = consumers.find((c) => c.name === request.consumer);
        if (!consumer) {
          const names = consumers.map((c) => c.name);
          return reply
            .code(404)
            .send(
              problem(
                "No such consumer.",
                `This service has no consumer "${request.consumer}"; ${names.length ? `its consumers: ${names.join(", ")}` : "it has none"}.`,
                "UNKNOWN_CONSUMER",
              ),
            );
        }
        return consumer.replayDeadLetters(request.ids);
      });
    });
  }
  return app;
}
