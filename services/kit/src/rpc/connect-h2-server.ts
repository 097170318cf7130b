/**
 * The server half of the kit's lean unary Connect calls (why: connect-h2-wire.ts):
 * {@link unaryFastPath} answers unary Connect calls with a binary body and no compression with the
 * service implementations and interceptors the router was given ({@link recordUnaryRoutes}); every
 * other request (gRPC, gRPC-web, Connect JSON, GET, compressed, streaming) goes to connect-node's
 * full handler, so all protocols keep working.
 */
import type { EventEmitter } from "node:events";
import type http from "node:http";
import http2 from "node:http2";
import { create, type DescMethodUnary, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import type {
  ConnectRouter,
  HandlerContext,
  Interceptor,
  UnaryRequest,
  UnaryResponse,
} from "@connectrpc/connect";
import { Code, ConnectError, createContextValues } from "@connectrpc/connect";
import { codeToHttpStatus, errorToJsonBytes, parseTimeout } from "@connectrpc/connect/protocol-connect";
import { AppError } from "../errors.ts";
import {
  CODECS,
  type Codec,
  callHeaders,
  JSON_TYPE,
  PROTO,
  type UnaryFn,
  withInterceptors,
} from "./connect-h2-wire.ts";
import { toConnectError, undecodableRequest } from "./errors.ts";
import { decodeJsonRequest } from "./json-request.ts";

const { HTTP2_HEADER_CONTENT_TYPE, HTTP2_HEADER_CONTENT_LENGTH } = http2.constants;

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
}

/**
 * A call's request and response: HTTP/2, or (benchmarks only, FOP_ABLATE=rpc-http2, server.ts)
 * HTTP/1.1.
 */
export type RpcServerRequest = http2.Http2ServerRequest | http.IncomingMessage;
export type RpcServerResponse = http2.Http2ServerResponse | http.ServerResponse;

/**
 * Connect JSON as a service reads a request (a direct caller's): through the REST JSON door, the
 * field that does not read named (json-request.ts). Responses are written as the protocol's codec
 * writes them.
 */
const JSON_REQUESTS: Codec = { ...CODECS.json, decode: decodeJsonRequest };

/**
 * The request handler of the services' h2c server: unary Connect calls (binary or JSON) without
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
    const codec = type === PROTO ? CODECS.proto : type === JSON_TYPE ? JSON_REQUESTS : undefined;
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
      throw toConnectError(err instanceof AppError ? err : undecodableRequest((err as Error).message));
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
