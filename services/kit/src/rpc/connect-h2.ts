/**
 * The Connect protocol's unary binary calls, lean, on both ends of an HTTP/2 (h2c) connection.
 *
 * Between our own processes every call is a unary Connect call with a binary protobuf body (the
 * gateway's and the services' clients never stream, never compress). connect-node handles such a
 * call through its general machinery — async-iterable pipelines, linked abort controllers, a
 * DOMException and a ConnectError allocated on every successful call — which measured ~260-315 us
 * of CPU per call (client and server together) against ~75 us for the same call done directly on
 * node:http2 (kit bench, Health/Check, 10 concurrent). So:
 *
 * - {@link createH2Transport} is a Connect `Transport` for unary calls: a `POST /<service>/<method>`
 *   with `Content-Type: application/proto`, `Connect-Protocol-Version: 1` and
 *   `Connect-Timeout-Ms`, on one HTTP/2 session per base URL (reconnected when it closes). Errors
 *   come back as the protocol's JSON error body, details included. The kit's client interceptors
 *   run around it as they would around connect-node's transport. A call that fails before any
 *   response is tried again when that is safe (see {@link createH2Transport}).
 * - {@link unaryFastPath} answers such requests on the server with the service implementations and
 *   interceptors the router was given; every other request (gRPC, gRPC-web, Connect JSON, GET,
 *   compressed, streaming) goes to connect-node's full handler, so all protocols keep working.
 *
 * Both follow https://connectrpc.com/docs/protocol (unary request/response, error JSON, timeouts).
 *
 * Benchmarks only (FOP_ABLATE, ../ablation.ts), to measure what the transport and the codec cost:
 * {@link createHttp1Transport} makes the same calls over keep-alive HTTP/1.1 connections, and both
 * transports (and the fast path, with `json`) can use the Connect JSON codec instead of protobuf.
 */
import type { EventEmitter } from "node:events";
import http from "node:http";
import http2 from "node:http2";
import {
  create,
  type DescMessage,
  type DescMethodUnary,
  type DescService,
  fromBinary,
  fromJsonString,
  type MessageInitShape,
  toBinary,
  toJsonString,
} from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  type ContextValues,
  createContextValues,
  type HandlerContext,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from "@connectrpc/connect";
import {
  codeFromHttpStatus,
  codeToHttpStatus,
  errorFromJsonBytes,
  errorToJsonBytes,
  parseTimeout,
} from "@connectrpc/connect/protocol-connect";
import { DEADLINE_HEADER } from "../deadline.ts";

const PROTO = "application/proto";
const JSON_TYPE = "application/json";

type HeadersInit = ConstructorParameters<typeof Headers>[0];
type UnaryFn = (req: UnaryRequest) => Promise<UnaryResponse>;

/** `next` wrapped by `interceptors`, the first outermost (as Connect applies them). */
function withInterceptors(next: UnaryFn, interceptors: Interceptor[] | undefined): UnaryFn {
  return (interceptors ?? []).reduceRight<UnaryFn>(
    (n, interceptor) => interceptor(n as never) as UnaryFn,
    next,
  );
}
const {
  HTTP2_HEADER_STATUS,
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_CONTENT_TYPE,
  HTTP2_HEADER_CONTENT_LENGTH,
  NGHTTP2_CANCEL,
  NGHTTP2_REFUSED_STREAM,
} = http2.constants;

// --- codecs ---------------------------------------------------------------------------------------

/** How a call's messages are written on the wire: its Content-Type and the (de)serializers. */
interface Codec {
  readonly type: string;
  encode(schema: DescMessage, message: UnaryRequest["message"]): Uint8Array;
  decode(schema: DescMessage, bytes: Uint8Array): UnaryRequest["message"];
}

const utf8 = new TextDecoder();

/** The wire format of a call: binary protobuf (what every component sends), or the Connect JSON codec. */
export type RpcCodec = "proto" | "json";

const CODECS: Record<RpcCodec, Codec> = {
  proto: {
    type: PROTO,
    encode: (schema, message) => toBinary(schema, message),
    decode: (schema, bytes) => fromBinary(schema, bytes),
  },
  // Benchmarks only (FOP_ABLATE=rpc-protobuf): the protocol's JSON codec. Unknown fields are
  // ignored when reading, as Connect's own JSON codec does by default.
  json: {
    type: JSON_TYPE,
    encode: (schema, message) => Buffer.from(toJsonString(schema, message)),
    decode: (schema, bytes) => fromJsonString(schema, utf8.decode(bytes), { ignoreUnknownFields: true }),
  },
};

// --- client ---------------------------------------------------------------------------------------

export interface H2TransportOptions {
  baseUrl: string;
  interceptors?: Interceptor[];
  /** Deadline of a call that names none. */
  defaultTimeoutMs?: number;
  /** An idle session (connection) is closed after this long (a new call opens a new one). */
  idleTimeoutMs?: number;
  /**
   * How long a call whose request provably never reached the service (no connection could be made;
   * or the server refused the stream: REFUSED_STREAM, a stream beyond its GOAWAY's last stream id)
   * is tried again, within its deadline (which usually ends it first): a service restarting on its
   * address is waited for as long as the caller waits - its successor may take seconds to listen
   * on a busy machine (default 10000, the clients' default deadline; 0: never).
   */
  reconnectWindowMs?: number;
  /** Binary protobuf (default) or, for benchmarks only, the Connect JSON codec. */
  codec?: RpcCodec;
}

/**
 * How a call failed before any response: `unsent` - the service never saw the request (safe to
 * send again, whatever the method); `lost` - the connection or stream broke after the request went
 * out (the service may have run it: only an idempotent method may be sent again).
 */
type Undelivered = "unsent" | "lost";
const UNDELIVERED = Symbol("fop.undelivered");
type FailedCall = ConnectError & { [UNDELIVERED]?: Undelivered };

const undelivered = (message: string, how: Undelivered): ConnectError => {
  const err: FailedCall = new ConnectError(message, Code.Unavailable);
  err[UNDELIVERED] = how;
  return err;
};

/** Methods the protos mark `idempotency_level = NO_SIDE_EFFECTS` or `IDEMPOTENT`. */
const isIdempotent = (method: DescMethodUnary): boolean =>
  method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS ||
  method.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT;

/** Waits `ms` unless `signal` aborts first. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });

/** A response body of at most this many bytes (the services' own request limit). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** One unary exchange on the wire; rejects with a ConnectError ({@link undelivered} when no response came). */
type Exchange = (req: UnaryRequest, timeoutMs: number | undefined) => Promise<UnaryResponse>;

/**
 * The timer and abort listener of one exchange. `fail` rejects the call once (after `cancel`,
 * which abandons its stream or request); `succeed` resolves it once; both clear the timer and
 * the listener. `started` is false when the call's signal had already aborted (then it failed).
 */
function guardCall(
  req: UnaryRequest,
  timeoutMs: number | undefined,
  cancel: () => void,
  resolve: (r: UnaryResponse) => void,
  reject: (e: unknown) => void,
) {
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const end = () => {
    settled = true;
    clearTimeout(timer);
    req.signal.removeEventListener("abort", onAbort);
  };
  const fail = (e: ConnectError) => {
    if (settled) return;
    end();
    cancel();
    reject(e);
  };
  const onAbort = () => fail(ConnectError.from(req.signal.reason, Code.Canceled));
  const guard = {
    fail,
    succeed: (r: UnaryResponse) => {
      if (settled) return;
      end();
      resolve(r);
    },
    get settled() {
      return settled;
    },
    started: true,
  };
  if (req.signal.aborted) {
    onAbort();
    guard.started = false;
    return guard;
  }
  req.signal.addEventListener("abort", onAbort);
  if (timeoutMs !== undefined) {
    timer = setTimeout(() => fail(new ConnectError("deadline exceeded", Code.DeadlineExceeded)), timeoutMs);
  }
  return guard;
}

/** The request headers of a call: the protocol's, the interceptors' and the call's timeout. */
function requestHeaders(
  req: UnaryRequest,
  codec: Codec,
  body: Uint8Array,
  timeoutMs: number | undefined,
  headers: http2.OutgoingHttpHeaders,
): http2.OutgoingHttpHeaders {
  headers[HTTP2_HEADER_CONTENT_TYPE] = codec.type;
  headers[HTTP2_HEADER_CONTENT_LENGTH] = body.byteLength;
  headers["connect-protocol-version"] = "1";
  req.header.forEach((value, key) => {
    headers[key] = value;
  });
  if (timeoutMs !== undefined) headers["connect-timeout-ms"] = String(Math.max(1, Math.ceil(timeoutMs)));
  return headers;
}

/** The call's outcome from a whole response: its message, or the ConnectError it carries. */
function responseOf(
  req: UnaryRequest,
  codec: Codec,
  status: number,
  responseHeaders: http2.IncomingHttpHeaders | http.IncomingHttpHeaders,
  bytes: Uint8Array,
): UnaryResponse | ConnectError {
  const header = callHeaders(responseHeaders);
  if (status !== 200)
    return errorFromJsonBytes(bytes, header, new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status)));
  const type = responseHeaders[HTTP2_HEADER_CONTENT_TYPE];
  if (type !== codec.type)
    return new ConnectError(`unexpected response content type ${String(type)}`, Code.Internal);
  let message: UnaryResponse["message"];
  try {
    message = codec.decode(req.method.output, bytes);
  } catch (err) {
    return new ConnectError(`cannot decode the response: ${(err as Error).message}`, Code.Internal);
  }
  return {
    stream: false,
    service: req.service,
    method: req.method,
    header,
    trailer: callHeaders(),
    message,
  };
}

/**
 * Connect `Transport` for unary binary calls over one HTTP/2 session per base URL.
 *
 * A session the server closes (GOAWAY: it is draining, see server.ts) or that breaks is dropped; the
 * next call opens a new one. A call that fails before any response is sent again, within its
 * deadline, when that is safe:
 * - the request never reached the service (the connection could not be made, or the server
 *   refused the stream after its GOAWAY): again and again, with a short backoff, within the
 *   call's deadline (and `reconnectWindowMs`) - whatever the method, the service did not run it; a
 *   service that stays down answers Unavailable just before the deadline, not at once;
 * - the connection broke after the request went out: ONCE, on a new connection, and only for a
 *   method the protos mark idempotent (`idempotency_level`); anything else fails Unavailable, as a
 *   write the service may have applied must not be applied twice.
 * A response (an error too) is never retried.
 */
export function createH2Transport(opts: H2TransportOptions): Transport {
  const base = new URL(opts.baseUrl);
  const authority = base.origin;
  const prefix = base.pathname.replace(/\/$/, "");
  const codec = CODECS[opts.codec ?? "proto"];
  let session: http2.ClientHttp2Session | undefined;
  /** Sessions whose connection was established (a stream on any other never left this process). */
  const connected = new WeakSet<http2.ClientHttp2Session>();

  const connect = (): http2.ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2.connect(authority);
    s.once("connect", () => connected.add(s));
    const forget = () => {
      if (session === s) session = undefined;
    };
    s.on("error", forget);
    s.on("close", forget);
    s.on("goaway", forget);
    s.setTimeout(opts.idleTimeoutMs ?? 5 * 60_000, () => s.close());
    // Calls keep the process alive, an idle session does not.
    s.unref();
    session = s;
    return s;
  };

  const exchange: Exchange = (req, timeoutMs) =>
    new Promise((resolve, reject) => {
      const body = codec.encode(req.method.input, req.message);
      const headers = requestHeaders(req, codec, body, timeoutMs, {
        [HTTP2_HEADER_METHOD]: "POST",
        [HTTP2_HEADER_PATH]: `${prefix}/${req.service.typeName}/${req.method.name}`,
      });
      let stream: http2.ClientHttp2Stream;
      let on: http2.ClientHttp2Session;
      try {
        on = connect();
        stream = on.request(headers);
      } catch (err) {
        reject(undelivered(String((err as Error).message), "unsent"));
        return;
      }
      /**
       * A failure before any response: did the request reach the service? The session it was on
       * is not used again (a call sent again goes on a new connection; its own closing may not
       * have been signalled yet).
       */
      const broke = (message: string) => {
        if (session === on) session = undefined;
        if (!on.closed && !on.destroyed) on.close();
        return undelivered(
          message,
          stream.rstCode === NGHTTP2_REFUSED_STREAM || !connected.has(on) ? "unsent" : "lost",
        );
      };
      const call = guardCall(
        req,
        timeoutMs,
        () => {
          if (!stream.closed) stream.close(NGHTTP2_CANCEL);
        },
        resolve,
        reject,
      );
      if (!call.started) return;
      let status = 0;
      let responseHeaders: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("response", (h) => {
        responseHeaders = h;
        status = Number(h[HTTP2_HEADER_STATUS]);
      });
      stream.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES)
          call.fail(new ConnectError("response too large", Code.ResourceExhausted));
        else chunks.push(c);
      });
      stream.on("error", (err) =>
        call.fail(status === 0 ? broke(err.message) : new ConnectError(err.message, Code.Unavailable)),
      );
      stream.on("close", () => {
        if (call.settled) return;
        if (status === 0) return call.fail(broke("the stream closed without a response"));
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const out = responseOf(req, codec, status, responseHeaders, bytes);
        if (out instanceof ConnectError) call.fail(out);
        else call.succeed(out);
      });
      stream.end(body);
    });

  return unaryTransport(exchange, opts);
}

/**
 * BENCHMARKS ONLY (FOP_ABLATE=rpc-http2, ablation.ts): the same unary Connect calls as
 * {@link createH2Transport}, over keep-alive HTTP/1.1 connections (node:http's Agent: one call at
 * a time per connection, as many connections as calls in flight), against a service that accepts
 * HTTP/1.1 on its RPC port (server.ts, with the same switch). Sent again as there: a call whose
 * connection could not be made is unsent; one whose connection broke after it was written, lost.
 */
export function createHttp1Transport(opts: H2TransportOptions): Transport {
  const base = new URL(opts.baseUrl);
  const prefix = base.pathname.replace(/\/$/, "");
  const codec = CODECS[opts.codec ?? "proto"];
  const agent = new http.Agent({
    keepAlive: true,
    scheduling: "lifo",
    timeout: opts.idleTimeoutMs ?? 5 * 60_000,
  });

  const exchange: Exchange = (req, timeoutMs) =>
    new Promise((resolve, reject) => {
      const body = codec.encode(req.method.input, req.message);
      const headers = requestHeaders(req, codec, body, timeoutMs, {});
      let request: http.ClientRequest;
      try {
        request = http.request({
          host: base.hostname,
          port: base.port,
          path: `${prefix}/${req.service.typeName}/${req.method.name}`,
          method: "POST",
          headers,
          agent,
        });
      } catch (err) {
        reject(undelivered(String((err as Error).message), "unsent"));
        return;
      }
      /** Whether the request's connection was made (a reused one was). */
      let reached = false;
      request.once("socket", (socket) => {
        if (request.reusedSocket || !socket.connecting) reached = true;
        else socket.once("connect", () => (reached = true));
      });
      const call = guardCall(req, timeoutMs, () => request.destroy(), resolve, reject);
      if (!call.started) return;
      let responded = false;
      request.on("error", (err) => {
        if (!responded) call.fail(undelivered(err.message, reached ? "lost" : "unsent"));
      });
      request.on("response", (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES)
            call.fail(new ConnectError("response too large", Code.ResourceExhausted));
          else chunks.push(c);
        });
        res.on("error", (err) => call.fail(new ConnectError(err.message, Code.Unavailable)));
        res.on("end", () => {
          if (call.settled) return;
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          const out = responseOf(req, codec, res.statusCode ?? 0, res.headers, bytes);
          if (out instanceof ConnectError) call.fail(out);
          else call.succeed(out);
        });
      });
      request.end(body);
    });

  return unaryTransport(exchange, opts);
}

/**
 * A Connect `Transport` of unary calls made by `exchange`, sent again after a failure before any
 * response when that is safe (see {@link createH2Transport}), with `opts.interceptors` around.
 */
function unaryTransport(exchange: Exchange, opts: H2TransportOptions): Transport {
  const base = new URL(opts.baseUrl);
  const authority = base.origin;
  const prefix = base.pathname.replace(/\/$/, "");
  const reconnectWindowMs = opts.reconnectWindowMs ?? 10_000;

  const send = async (req: UnaryRequest, timeoutMs: number | undefined): Promise<UnaryResponse> => {
    const start = Date.now();
    // The absolute deadline the kit's client interceptor put on the call (capped by the call this one
    // is part of) bounds the resends too: a service that keeps retrying an unreachable one until its
    // own relative timeout answers after its caller gave up (a 504 where a 503 was due).
    const absolute = Number(req.header.get(DEADLINE_HEADER) ?? Number.NaN);
    const own = timeoutMs === undefined ? Number.POSITIVE_INFINITY : start + timeoutMs;
    const deadline = Number.isFinite(absolute) && absolute > 0 ? Math.min(own, absolute) : own;
    if (deadline !== own) timeoutMs = Math.max(1, deadline - start);
    const reconnectUntil = Math.min(deadline, start + reconnectWindowMs);
    let resent = false;
    for (let attempt = 0; ; attempt++) {
      const left = timeoutMs === undefined ? undefined : deadline - Date.now();
      if (left !== undefined && left <= 0) throw new ConnectError("deadline exceeded", Code.DeadlineExceeded);
      try {
        return await exchange(req, attempt === 0 ? timeoutMs : left);
      } catch (err) {
        const how = (err as FailedCall)[UNDELIVERED];
        if (how === "unsent") {
          // At once the first time (a GOAWAY: a new connection), then backing off (no listener).
          const delay = attempt === 0 ? 0 : Math.min(500, 25 * 2 ** (attempt - 1));
          if (Date.now() + delay < reconnectUntil && !req.signal.aborted) {
            await pause(delay, req.signal);
            continue;
          }
        } else if (how === "lost" && !resent && isIdempotent(req.method)) {
          resent = true;
          continue;
        }
        throw err;
      }
    }
  };

  // The interceptors around the exchange, built once; each call's timeout travels on its request.
  const chain = withInterceptors(
    (r) => send(r, (r as UnaryRequest & { [TIMEOUT]?: number })[TIMEOUT]),
    opts.interceptors,
  );
  return {
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const timeout = timeoutMs ?? opts.defaultTimeoutMs;
      const requestHeader = callHeaders(header);
      // Interceptors see the timeout as connect-node's transport shows it.
      if (timeout !== undefined) requestHeader.set("connect-timeout-ms", String(timeout));
      return chain({
        stream: false,
        service: method.parent,
        method,
        requestMethod: "POST",
        url: `${authority}${prefix}/${method.parent.typeName}/${method.name}`,
        signal: signal ?? NEVER,
        header: requestHeader,
        contextValues: contextValues ?? createContextValues(),
        message: create(method.input, input),
        [TIMEOUT]: timeout,
      } as UnaryRequest) as Promise<UnaryResponse<I, O>>;
    },
    stream() {
      return Promise.reject(new ConnectError("this transport makes unary calls only", Code.Unimplemented));
    },
  };
}

/** The timeout of a client call, on its request (for the exchange under the interceptors). */
const TIMEOUT = Symbol("fop.timeout");

/** A signal that never aborts (calls without one). */
const NEVER = new AbortController().signal;

/**
 * The `Headers` of a call on the fast path: a plain map with the part of the Fetch API's Headers
 * that interceptors and handlers use (get/set/has/append/delete/forEach/iteration), names
 * lower-cased. The Fetch API's own class validates and sorts on every operation, which measured
 * ~5% of a GET's CPU in gateway and service together; here the values come from node:http2 (which
 * validated them on the wire) or from our own interceptors, and node:http2 checks what we send.
 */
export class CallHeaders implements Iterable<[string, string]> {
  private readonly map = new Map<string, string>();

  constructor(init?: HeadersInit | http2.IncomingHttpHeaders) {
    if (!init) return;
    if (init instanceof CallHeaders || (typeof Headers !== "undefined" && init instanceof Headers)) {
      (init as Headers).forEach((v, k) => {
        this.append(k, v);
      });
    } else if (Array.isArray(init)) {
      for (const [k, v] of init as [string, string][]) this.append(k, v);
    } else {
      for (const [k, v] of Object.entries(init as Record<string, string | string[] | undefined>)) {
        if (k.startsWith(":") || v === undefined) continue;
        if (Array.isArray(v)) for (const x of v) this.append(k, x);
        else this.append(k, String(v));
      }
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), String(value));
  }
  append(name: string, value: string): void {
    const k = name.toLowerCase();
    const was = this.map.get(k);
    this.map.set(k, was === undefined ? String(value) : `${was}, ${value}`);
  }
  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }
  getSetCookie(): string[] {
    return [];
  }
  forEach(fn: (value: string, key: string, parent: Headers) => void): void {
    for (const [k, v] of this.map) fn(v, k, this as unknown as Headers);
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  values(): IterableIterator<string> {
    return this.map.values();
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

/** A {@link CallHeaders} typed as the Fetch API's Headers, which Connect's types ask for. */
const callHeaders = (init?: HeadersInit | http2.IncomingHttpHeaders): Headers =>
  new CallHeaders(init) as unknown as Headers;

// --- server ---------------------------------------------------------------------------------------

/** What the innermost step of a server call needs, carried on the request (see serverChain). */
const CALL = Symbol("fop.call");
type ServerCall = UnaryRequest & { [CALL]: { entry: UnaryEntry; hctx: HandlerContext } };

/** Runs the implementation of a fast-path call: the innermost step under the interceptors. */
async function runImpl(r: UnaryRequest): Promise<UnaryResponse> {
  const { entry, hctx } = (r as ServerCall)[CALL];
  const { service, method } = entry;
  const result = await entry.impl(r.message, hctx);
  return {
    stream: false,
    service,
    method,
    header: hctx.responseHeader,
    trailer: hctx.responseTrailer,
    message: create(method.output, result as MessageInitShape<typeof method.output>),
  } as UnaryResponse;
}

/** The interceptors wrapped around runImpl, built once per interceptor list (not per call). */
const chains = new WeakMap<Interceptor[], UnaryFn>();
function serverChain(interceptors: Interceptor[] | undefined): UnaryFn {
  if (!interceptors) return runImpl;
  let chain = chains.get(interceptors);
  if (!chain) {
    chain = withInterceptors(runImpl, interceptors);
    chains.set(interceptors, chain);
  }
  return chain;
}

interface UnaryEntry {
  service: DescService;
  method: DescMethodUnary;
  impl: (req: unknown, ctx: HandlerContext) => unknown;
}

/**
 * Wraps `routes` so that it also records every unary method implementation it registers, by path
 * (`/<service>/<method>`); the returned `routes` registers them with the real router as before.
 */
export function recordUnaryRoutes(routes: (router: ConnectRouter) => void) {
  const unary = new Map<string, UnaryEntry>();
  const recording = (router: ConnectRouter) => {
    const proxy: ConnectRouter = {
      handlers: router.handlers,
      service(service, impl, options) {
        for (const method of service.methods) {
          const fn = (impl as Record<string, unknown>)[method.localName];
          if (method.methodKind === "unary" && typeof fn === "function") {
            unary.set(`/${service.typeName}/${method.name}`, {
              service,
              method: method as DescMethodUnary,
              impl: fn.bind(impl) as UnaryEntry["impl"],
            });
          }
        }
        return router.service(service, impl, options);
      },
      rpc(method, impl, options) {
        return router.rpc(method, impl, options);
      },
    };
    routes(proxy);
  };
  return { routes: recording, unary };
}

export interface FastPathOptions {
  unary: Map<string, UnaryEntry>;
  interceptors: Interceptor[];
  /** Largest request body accepted (bytes). */
  bodyLimit: number;
  /** Aborted when the server shuts down. */
  shutdownSignal?: AbortSignal;
  /** Benchmarks only (FOP_ABLATE=rpc-protobuf): unary Connect JSON calls are answered here too. */
  json?: boolean;
}

/**
 * A call's request and response: HTTP/2, or (benchmarks only, FOP_ABLATE=rpc-http2, server.ts)
 * HTTP/1.1.
 */
export type RpcServerRequest = http2.Http2ServerRequest | http.IncomingMessage;
export type RpcServerResponse = http2.Http2ServerResponse | http.ServerResponse;

/**
 * The request handler of the services' h2c server: unary Connect calls with a binary body and no
 * compression are answered here; anything else goes to `fallback` (connect-node's handler).
 */
export function unaryFastPath(
  opts: FastPathOptions,
  fallback: (req: RpcServerRequest, res: RpcServerResponse) => void,
) {
  return (req: RpcServerRequest, res: RpcServerResponse): void => {
    const entry = req.method === "POST" ? opts.unary.get(req.url!) : undefined;
    const h = req.headers;
    const type = h[HTTP2_HEADER_CONTENT_TYPE];
    const codec = type === PROTO ? CODECS.proto : opts.json && type === JSON_TYPE ? CODECS.json : undefined;
    if (!entry || !codec || (h["content-encoding"] !== undefined && h["content-encoding"] !== "identity")) {
      fallback(req, res);
      return;
    }
    void handleUnary(entry, codec, opts, req, res);
  };
}

/** A response the client can no longer receive. */
const gone = (res: RpcServerResponse) =>
  res instanceof http2.Http2ServerResponse ? res.stream.destroyed : res.destroyed;

/** Writes a whole response (the two protocols' writeHead have different types, not different uses). */
function respond(
  res: RpcServerResponse,
  status: number,
  headers: http2.OutgoingHttpHeaders,
  body: Uint8Array,
) {
  (res as http.ServerResponse).writeHead(status, headers as http.OutgoingHttpHeaders);
  res.end(body);
}

function sendError(res: RpcServerResponse, err: ConnectError): void {
  if (res.headersSent || gone(res)) return;
  const body = errorToJsonBytes(err, {});
  const headers: http2.OutgoingHttpHeaders = {
    [HTTP2_HEADER_CONTENT_TYPE]: JSON_TYPE,
    [HTTP2_HEADER_CONTENT_LENGTH]: body.byteLength,
  };
  err.metadata.forEach((value, key) => {
    headers[key] = value;
  });
  respond(res, codeToHttpStatus(err.code), headers, body);
}

async function handleUnary(
  entry: UnaryEntry,
  codec: Codec,
  opts: FastPathOptions,
  req: RpcServerRequest,
  res: RpcServerResponse,
): Promise<void> {
  const { service, method } = entry;
  // The call's signal: aborted when the client cancels (stream reset, or its HTTP/1.1 connection
  // closed before the response) or its timeout passes.
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onClose = () => {
    if (!res.writableEnded) controller.abort(new ConnectError("the client canceled the call", Code.Canceled));
  };
  const closes: EventEmitter = req instanceof http2.Http2ServerRequest ? req.stream : res;
  closes.once("close", onClose);
  try {
    const timeout = parseTimeout(
      (req.headers["connect-timeout-ms"] as string | undefined) ?? null,
      Number.MAX_SAFE_INTEGER,
    );
    if (timeout.error) throw timeout.error;
    const deadline = timeout.timeoutMs === undefined ? undefined : Date.now() + timeout.timeoutMs;
    if (timeout.timeoutMs !== undefined) {
      timer = setTimeout(
        () => controller.abort(new ConnectError("the call's deadline passed", Code.DeadlineExceeded)),
        timeout.timeoutMs,
      );
    }
    const body = await readBody(req, opts.bodyLimit);
    const header = callHeaders(req.headers);
    const contextValues = createContextValues();
    const hctx: HandlerContext = {
      service,
      method,
      signal: controller.signal,
      timeoutMs: () => (deadline === undefined ? undefined : deadline - Date.now()),
      requestMethod: "POST",
      requestHeader: header,
      responseHeader: callHeaders(),
      responseTrailer: callHeaders(),
      protocolName: "connect",
      values: contextValues,
      url: req.url!,
    };
    let message: UnaryRequest["message"];
    try {
      message = codec.decode(method.input, body);
    } catch (err) {
      throw new ConnectError(`cannot decode the request: ${(err as Error).message}`, Code.InvalidArgument);
    }
    const next = serverChain(opts.interceptors);
    const out = await next({
      stream: false,
      service,
      method,
      requestMethod: "POST",
      url: req.url!,
      signal: controller.signal,
      header,
      contextValues,
      message,
      [CALL]: { entry, hctx },
    } as UnaryRequest);
    if (controller.signal.aborted) throw ConnectError.from(controller.signal.reason);
    const bytes = codec.encode(method.output, out.message);
    const headers: http2.OutgoingHttpHeaders = {
      [HTTP2_HEADER_CONTENT_TYPE]: codec.type,
      [HTTP2_HEADER_CONTENT_LENGTH]: bytes.byteLength,
    };
    out.header.forEach((value, key) => {
      headers[key] = value;
    });
    out.trailer.forEach((value, key) => {
      headers[`trailer-${key}`] = value;
    });
    respond(res, 200, headers, bytes);
  } catch (err) {
    sendError(res, ConnectError.from(err));
  } finally {
    clearTimeout(timer);
    closes.off("close", onClose);
  }
}

function readBody(req: RpcServerRequest, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners("data");
        reject(new ConnectError(`the request is larger than ${limit} bytes`, Code.ResourceExhausted));
      } else chunks.push(c);
    });
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once("error", (err) => reject(new ConnectError(err.message, Code.Canceled)));
  });
}
