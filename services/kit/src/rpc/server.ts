/**
 * A service's RPC listener: Connect RPC (Connect, gRPC and gRPC-web protocols) on an h2c port. Its
 * other listener, /healthz, /readyz, /metrics and the dead letters on a plain HTTP/1.1 admin port
 * (what Kubernetes httpGet probes speak), is ../admin.ts.
 */

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
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import { type RequestContext, requestContextKey } from "../context.ts";
import { translateDbError } from "../db/tx.ts";
import { DEADLINE_HEADER, deadlineExceeded, runInCall, serverDeadline } from "../deadline.ts";
import { AppError, isAppError } from "../errors.ts";
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
} from "./connect-h2-server.ts";
import { grpcStatusName, toConnectError, undecodableRequest } from "./errors.ts";
import { REFLECTION_SERVICES, registerReflection } from "./reflection.ts";
import { typedInputInterceptor } from "./typed-input.ts";

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
 * connect-node answers a gRPC request whose message cannot be decoded (bytes that are no message, a
 * body nested past protobuf-es's recursion limit of 100) with INTERNAL, in the trailers. It is the
 * caller's fault: the status is rewritten to the refusal the fast path gives a Connect call it
 * cannot decode (INVALID_ARGUMENT, MALFORMED_REQUEST, errors.ts undecodableRequest).
 */
function grpcDecodeFailuresAsRefusals(
  fallback: (req: RpcServerRequest, res: RpcServerResponse) => void,
): (req: RpcServerRequest, res: RpcServerResponse) => void {
  return (req, res) => {
    if (String(req.headers["content-type"] ?? "").startsWith("application/grpc")) {
      const addTrailers = res.addTrailers.bind(res) as (trailers: http.OutgoingHttpHeaders) => void;
      res.addTrailers = (trailers: http.OutgoingHttpHeaders) => {
        const t = trailers as Record<string, string>;
        const message = t["grpc-status"] === "13" ? decodeURIComponent(t["grpc-message"] ?? "") : "";
        if (!message.startsWith("parse binary: ")) return addTrailers(trailers);
        const status = new Headers();
        setTrailerStatus(status, toConnectError(undecodableRequest(message.slice("parse binary: ".length))));
        const rewritten: Record<string, string> = {};
        for (const [k, v] of Object.entries(t)) if (!k.startsWith("grpc-")) rewritten[k] = v;
        for (const [k, v] of status) rewritten[k] = v;
        return addTrailers(rewritten);
      };
    }
    fallback(req, res);
  };
}

/**
 * BENCHMARKS ONLY (FOP_ABLATE, ../ablation.ts): `http1` - the RPC port also accepts HTTP/1.1 (a
 * connection is HTTP/2 when it opens with the HTTP/2 preface, else HTTP/1.1), for a gateway that
 * calls over HTTP/1.1.
 */
export interface RpcServerOptions {
  http1?: boolean;
}

/**
 * Builds (does not listen) the h2c RPC server with the kit's interceptors, the health service and
 * gRPC server reflection of everything it serves (reflection.ts). Unary Connect calls (binary, or JSON
 * read through the REST JSON door: json-request.ts) take connect-h2-server.ts's fast path; every
 * other request (gRPC, gRPC-web, Connect GET, compressed, streaming, so reflection's bidi streams too) connect-node's full handler, with the
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
    typedInputInterceptor(),
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
  const fallback = grpcDecodeFailuresAsRefusals(
    connectNodeAdapter({
      routes: recorded.routes,
      interceptors,
      shutdownSignal: shutdown.signal,
      readMaxBytes: RPC_BODY_LIMIT,
    }),
  );
  const handle = unaryFastPath(
    {
      unary: recorded.unary,
      interceptors,
      bodyLimit: RPC_BODY_LIMIT,
      shutdownSignal: shutdown.signal,
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
        // this one's successor, see connect-h2-transport.ts).
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
