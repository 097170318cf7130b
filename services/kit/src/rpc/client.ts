import type { DescService } from "@bufbuild/protobuf";
import { type CallOptions, type Client, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { Ablation } from "../ablation.ts";
import { contextToHeaders, type RequestContext } from "../context.ts";
import { DEADLINE_HEADER, outgoingDeadline } from "../deadline.ts";
import { injectTraceHeaders, otelContext, otelTrace, SpanKind, SpanStatusCode, tracer } from "../otel.ts";
import { bearerInterceptor, type RpcCredentials } from "./auth.ts";
import { createH2Transport, createHttp1Transport } from "./connect-h2-transport.ts";
import type { RpcCodec } from "./connect-h2-wire.ts";

/** Client span per call; its context travels as traceparent. */
const clientTraceInterceptor: Interceptor = (next) => async (req) => {
  const span = tracer().startSpan(`${req.service.typeName}/${req.method.name}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      "rpc.system": "connect_rpc",
      "rpc.service": req.service.typeName,
      "rpc.method": req.method.name,
    },
  });
  const ctx = otelTrace.setSpan(otelContext.active(), span);
  const carrier: Record<string, string> = {};
  injectTraceHeaders(carrier, ctx);
  for (const [k, v] of Object.entries(carrier)) req.header.set(k, v);
  try {
    return await otelContext.with(ctx, () => next(req));
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
};

/**
 * Every call carries an absolute deadline (see deadline.ts): the call's own timeout (Connect puts it
 * in `connect-timeout-ms` / `grpc-timeout`), capped by the deadline of the call it is made for.
 */
const deadlineInterceptor: Interceptor = (next) => async (req) => {
  const ms = req.header.get("connect-timeout-ms");
  const deadline = outgoingDeadline(ms ? Number(ms) : undefined);
  if (deadline !== undefined) req.header.set(DEADLINE_HEADER, String(deadline));
  return next(req);
};

export interface RpcClientOptions {
  /** Default deadline per call. */
  timeoutMs?: number;
  /** How long a call the service never received is tried again (connect-h2-transport.ts; default 10000). */
  reconnectWindowMs?: number;
  /** Benchmarks only ({@link ablatedWire}): "1.1" calls over keep-alive HTTP/1.1 instead of HTTP/2. */
  httpVersion?: "2" | "1.1";
  /** Benchmarks only ({@link ablatedWire}): "json" is the Connect JSON codec instead of protobuf. */
  codec?: RpcCodec;
  /** Interceptors after the kit's own (tests: recording what a process sends). */
  interceptors?: Interceptor[];
}

/**
 * The wire of a process's RPC clients with FOP_ABLATE (ablation.ts): HTTP/1.1 for `rpc-http2`,
 * JSON for `rpc-protobuf`; nothing (HTTP/2, protobuf) otherwise.
 */
export function ablatedWire(ablation: Ablation): Pick<RpcClientOptions, "httpVersion" | "codec"> {
  return {
    ...(ablation.has("rpc-http2") ? { httpVersion: "1.1" as const } : {}),
    ...(ablation.has("rpc-protobuf") ? { codec: "json" as const } : {}),
  };
}

/**
 * A typed Connect client for `service` at `baseUrl`: unary Connect calls, binary protobuf,
 * uncompressed, over one HTTP/2 (h2c) session (connect-h2-transport.ts), with the caller's bearer token
 * (`credentials`, auth.ts), client spans, trace propagation and the absolute deadline header. No compression between services: on a cluster
 * network the CPU it costs is worth more than the bytes it saves. A call that fails before any
 * response is sent again when that is safe: the service never received it (no connection, or a
 * stream refused by a draining service), or - once - its method is idempotent in the proto
 * (`idempotency_level`).
 */
export function createRpcClient<T extends DescService>(
  service: T,
  baseUrl: string,
  credentials: RpcCredentials,
  opts: RpcClientOptions = {},
): Client<T> {
  const transport = (opts.httpVersion === "1.1" ? createHttp1Transport : createH2Transport)({
    baseUrl,
    interceptors: [
      clientTraceInterceptor,
      deadlineInterceptor,
      bearerInterceptor(credentials),
      ...(opts.interceptors ?? []),
    ],
    defaultTimeoutMs: opts.timeoutMs ?? 10_000,
    idleTimeoutMs: 5 * 60_000,
    ...(opts.reconnectWindowMs === undefined ? {} : { reconnectWindowMs: opts.reconnectWindowMs }),
    ...(opts.codec === undefined ? {} : { codec: opts.codec }),
  });
  return createClient(service, transport);
}

/**
 * A client for `service`'s streaming methods (the unary transport above makes unary calls only):
 * connect-node's Connect transport over HTTP/2, binary, with the bearer token, the client span and
 * trace propagation. A stream has no deadline unless the call names one; it ends when the caller's
 * signal aborts.
 */
export function createStreamingRpcClient<T extends DescService>(
  service: T,
  baseUrl: string,
  credentials: RpcCredentials,
): Client<T> {
  return createClient(
    service,
    createConnectTransport({
      baseUrl,
      httpVersion: "2",
      useBinaryFormat: true,
      interceptors: [clientTraceInterceptor, bearerInterceptor(credentials)],
    }),
  );
}

/** Call options that carry the request context to the called service. */
export function callOptions(ctx: Omit<RequestContext, "traceId">, extra: CallOptions = {}): CallOptions {
  return { ...extra, headers: contextToHeaders(ctx) };
}
