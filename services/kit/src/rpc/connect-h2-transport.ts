/**
 * The client half of the kit's lean unary Connect calls (why: connect-h2-wire.ts).
 * {@link createH2Transport} is a Connect `Transport` for unary calls: a `POST /<service>/<method>`
 * with `Content-Type: application/proto`, `Connect-Protocol-Version: 1` and `Connect-Timeout-Ms`,
 * on one HTTP/2 session per base URL (reconnected when it closes). Errors come back as the
 * protocol's JSON error body, details included. The kit's client interceptors run around it as they
 * would around connect-node's transport. A call that fails before any response is tried again when
 * that is safe (see {@link createH2Transport}). Benchmarks only: {@link createHttp1Transport}.
 */
import http from "node:http";
import http2 from "node:http2";
import { create, type DescMessage, type DescMethodUnary, type MessageInitShape } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import type { ContextValues, Interceptor, Transport, UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { codeFromHttpStatus, errorFromJsonBytes } from "@connectrpc/connect/protocol-connect";
import { DEADLINE_HEADER } from "../deadline.ts";
import {
  CODECS,
  type Codec,
  callHeaders,
  type HeadersInit,
  type RpcCodec,
  withInterceptors,
} from "./connect-h2-wire.ts";

const {
  HTTP2_HEADER_STATUS,
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_CONTENT_TYPE,
  HTTP2_HEADER_CONTENT_LENGTH,
  NGHTTP2_CANCEL,
  NGHTTP2_REFUSED_STREAM,
} = http2.constants;

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
