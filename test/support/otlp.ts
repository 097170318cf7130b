/**
 * A local OTLP/HTTP trace receiver (what a collector's otlp receiver on 4318 does, for tests):
 * takes POST /v1/traces in both OTLP/HTTP encodings (http/protobuf, the SDK's default, and
 * http/json), gzip or not, and keeps every span with its process's resource.
 */
import { gunzipSync } from "node:zlib";
import { SpanKind } from "@opentelemetry/api";
import { fastify } from "fastify";
import type { TraceSpan } from "./traces.ts";

export interface OtlpReceiver {
  /** Base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (spans go to <url>/v1/traces). */
  url: string;
  /** Every span received, in arrival order. */
  spans: TraceSpan[];
  /** Content type of every export request received. */
  contentTypes: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: TraceSpan[] = [];
  const contentTypes: string[] = [];
  const app = fastify({ bodyLimit: 20 * 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.post("/v1/traces", async (req, reply) => {
    const type = String(req.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim();
    contentTypes.push(type);
    let body = req.body as Buffer;
    if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
    if (process.env.OTLP_DEBUG) console.log("OTLP", type, body.length);
    if (type === "application/json") {
      spans.push(...fromJson(JSON.parse(body.toString("utf8"))));
      return {};
    }
    if (type === "application/x-protobuf") {
      spans.push(...fromProtobuf(body));
      // An empty ExportTraceServiceResponse.
      return reply.type("application/x-protobuf").send(Buffer.alloc(0));
    }
    return reply.code(415).send({ error: `unsupported content type ${type}` });
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, spans, contentTypes, close: () => app.close() };
}

/** OTLP's span kinds (SPAN_KIND_INTERNAL = 1 ...) are the API's plus one; 0 is unspecified. */
const kindOf = (otlp: number): SpanKind => (otlp > 0 ? ((otlp - 1) as SpanKind) : SpanKind.INTERNAL);

// --- http/json -------------------------------------------------------------------------------

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
  bytesValue?: string;
}
type JsonKeyValue = { key: string; value: JsonAnyValue };

const jsonValue = (v: JsonAnyValue): unknown =>
  v.stringValue ??
  v.boolValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  (v.arrayValue ? (v.arrayValue.values ?? []).map(jsonValue) : undefined) ??
  v.bytesValue;
const jsonAttributes = (kvs: JsonKeyValue[] = []) =>
  Object.fromEntries(kvs.map((kv) => [kv.key, jsonValue(kv.value)]));
/** OTLP/JSON ids are hex; some encoders send base64 (protobuf's JSON mapping of bytes). */
const jsonId = (id: string | undefined, hexLength: number): string | undefined => {
  if (!id) return undefined;
  return new RegExp(`^[0-9a-f]{${hexLength}}$`).test(id) ? id : Buffer.from(id, "base64").toString("hex");
};

function fromJson(body: {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: JsonKeyValue[];
      }[];
    }[];
  }[];
}): TraceSpan[] {
  const out: TraceSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: jsonId(s.traceId, 32)!,
          spanId: jsonId(s.spanId, 16)!,
          parentSpanId: jsonId(s.parentSpanId, 16),
          name: s.name,
          kind: kindOf(s.kind ?? 0),
          attributes: jsonAttributes(s.attributes),
          resource,
        });
  }
  return out;
}

// --- http/protobuf ---------------------------------------------------------------------------
// Just enough of the protobuf wire format for opentelemetry/proto/collector/trace/v1
// ExportTraceServiceRequest: field numbers as in opentelemetry-proto's trace.proto and common.proto.

type Field = { no: number; varint?: bigint; bytes?: Buffer };

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let i = 0;
  const varint = () => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]!;
      value |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return value;
    }
  };
  const take = (n: number) => {
    const bytes = buf.subarray(i, i + n);
    i += n;
    return bytes;
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const no = tag >>> 3;
    switch (tag & 7) {
      case 0:
        out.push({ no, varint: varint() });
        break;
      case 1:
        out.push({ no, bytes: take(8) });
        break;
      case 2:
        out.push({ no, bytes: take(Number(varint())) });
        break;
      case 5:
        out.push({ no, bytes: take(4) });
        break;
      default:
        throw new Error(`protobuf wire type ${tag & 7} not supported`);
    }
  }
  return out;
}

const all = (fs: Field[], no: number) => fs.filter((f) => f.no === no);
const one = (fs: Field[], no: number) => fs.find((f) => f.no === no);

function anyValue(buf: Buffer): unknown {
  const f = fields(buf)[0];
  if (!f) return undefined;
  switch (f.no) {
    case 1: // string_value
      return f.bytes!.toString("utf8");
    case 2: // bool_value
      return f.varint !== 0n;
    case 3: // int_value
      return Number(BigInt.asIntN(64, f.varint!));
    case 4: // double_value
      return f.bytes!.readDoubleLE(0);
    case 5: // array_value { repeated AnyValue values = 1 }
      return all(fields(f.bytes!), 1).map((v) => anyValue(v.bytes!));
    case 7: // bytes_value
      return f.bytes!.toString("hex");
    default:
      return undefined;
  }
}

/** repeated KeyValue { string key = 1; AnyValue value = 2 } */
const protoAttributes = (kvs: Field[]) =>
  Object.fromEntries(
    kvs.map((kv) => {
      const f = fields(kv.bytes!);
      const value = one(f, 2)?.bytes;
      return [one(f, 1)!.bytes!.toString("utf8"), value ? anyValue(value) : undefined];
    }),
  );

function fromProtobuf(body: Buffer): TraceSpan[] {
  const out: TraceSpan[] = [];
  for (const rs of all(fields(body), 1)) {
    // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 }
    const rsf = fields(rs.bytes!);
    const res = one(rsf, 1)?.bytes;
    const resource = res ? protoAttributes(all(fields(res), 1)) : {};
    for (const ss of all(rsf, 2))
      for (const sp of all(fields(ss.bytes!), 2)) {
        // Span { trace_id = 1; span_id = 2; parent_span_id = 4; name = 5; kind = 6; attributes = 9 }
        const s = fields(sp.bytes!);
        const parent = one(s, 4)?.bytes;
        out.push({
          traceId: one(s, 1)!.bytes!.toString("hex"),
          spanId: one(s, 2)!.bytes!.toString("hex"),
          parentSpanId: parent?.length ? parent.toString("hex") : undefined,
          name: one(s, 5)?.bytes?.toString("utf8") ?? "",
          kind: kindOf(Number(one(s, 6)?.varint ?? 0n)),
          attributes: protoAttributes(all(s, 9)),
          resource,
        });
      }
  }
  return out;
}
