/**
 * What both ends of the kit's lean unary Connect calls share (connect-h2-transport.ts, the
 * client; connect-h2-server.ts, the server's fast path): the codecs, the call headers, interceptor
 * chaining.
 *
 * Why the kit makes these calls itself: between our own processes every call is a unary Connect
 * call with a binary protobuf body (the gateway's and the services' clients never stream, never
 * compress). connect-node handles such a call through its general machinery — async-iterable
 * pipelines, linked abort controllers, a DOMException and a ConnectError allocated on every
 * successful call — which measured ~260-315 us of CPU per call (client and server together) against
 * ~75 us for the same call done directly on node:http2 (kit bench, Health/Check, 10 concurrent).
 * Both ends follow https://connectrpc.com/docs/protocol (unary request/response, error JSON,
 * timeouts).
 *
 * Benchmarks only (FOP_ABLATE, ../ablation.ts), to measure what the transport and the codec cost:
 * createHttp1Transport makes the same calls over keep-alive HTTP/1.1 connections, and both
 * transports can use the Connect JSON codec instead of protobuf. The fast path always answers
 * Connect JSON (a direct caller's), reading it through the REST JSON door (json-request.ts).
 */
import type http2 from "node:http2";
import { type DescMessage, fromBinary, fromJsonString, toBinary, toJsonString } from "@bufbuild/protobuf";
import type { Interceptor, UnaryRequest, UnaryResponse } from "@connectrpc/connect";

export const PROTO = "application/proto";
export const JSON_TYPE = "application/json";

export type HeadersInit = ConstructorParameters<typeof Headers>[0];
export type UnaryFn = (req: UnaryRequest) => Promise<UnaryResponse>;

/** `next` wrapped by `interceptors`, the first outermost (as Connect applies them). */
export function withInterceptors(next: UnaryFn, interceptors: Interceptor[] | undefined): UnaryFn {
  return (interceptors ?? []).reduceRight<UnaryFn>(
    (n, interceptor) => interceptor(n as never) as UnaryFn,
    next,
  );
}

/** How a call's messages are written on the wire: its Content-Type and the (de)serializers. */
export interface Codec {
  readonly type: string;
  encode(schema: DescMessage, message: UnaryRequest["message"]): Uint8Array;
  decode(schema: DescMessage, bytes: Uint8Array): UnaryRequest["message"];
}

const utf8 = new TextDecoder();

/** The wire format of a call: binary protobuf (what every component sends), or the Connect JSON codec. */
export type RpcCodec = "proto" | "json";

export const CODECS: Record<RpcCodec, Codec> = {
  proto: {
    type: PROTO,
    encode: (schema, message) => toBinary(schema, message),
    decode: (schema, bytes) => fromBinary(schema, bytes),
  },
  // The protocol's JSON codec: the clients' with FOP_ABLATE=rpc-protobuf (benchmarks only); the
  // server reads requests with json-request.ts. Unknown fields are ignored when reading, as
  // Connect's own JSON codec does by default.
  json: {
    type: JSON_TYPE,
    encode: (schema, message) => Buffer.from(toJsonString(schema, message)),
    decode: (schema, bytes) => fromJsonString(schema, utf8.decode(bytes), { ignoreUnknownFields: true }),
  },
};

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
export const callHeaders = (init?: HeadersInit | http2.IncomingHttpHeaders): Headers =>
  new CallHeaders(init) as unknown as Headers;
