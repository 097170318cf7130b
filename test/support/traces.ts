/**
 * "One request is one trace", checked the same way on the spans a test process recorded itself
 * (testSpans(), in-process services) and on the spans service processes exported over OTLP
 * (otlp.ts): gateway -> Connect RPC -> Postgres -> outbox -> NATS -> consumer -> Postgres.
 */
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { expect } from "vitest";

/** A finished span, wherever it was recorded. */
export interface TraceSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: SpanKind;
  attributes: Record<string, unknown>;
  /** The resource of the process that recorded it (service.name, host.*, k8s.* ...). */
  resource: Record<string, unknown>;
}

export const fromReadableSpan = (s: ReadableSpan): TraceSpan => ({
  traceId: s.spanContext().traceId,
  spanId: s.spanContext().spanId,
  parentSpanId: s.parentSpanContext?.spanId,
  name: s.name,
  kind: s.kind,
  attributes: s.attributes,
  resource: s.resource.attributes,
});

/** A Postgres statement span whose statement inserts (a plain INSERT or one inside WITH). */
export function isPgInsert(s: TraceSpan): boolean {
  const text = String(s.attributes["db.statement"] ?? s.attributes["db.query.text"] ?? "");
  return s.name.startsWith("pg.query:") && /\binsert\s+into\b/i.test(text);
}

/** Span ids from `s`'s parent up to the root (as far as `spans` holds them). */
export function ancestors(spans: TraceSpan[], s: TraceSpan): string[] {
  const byId = new Map(spans.map((x) => [x.spanId, x]));
  const out: string[] = [];
  for (let p = s.parentSpanId; p; p = byId.get(p)?.parentSpanId) out.push(p);
  return out;
}

/**
 * Asserts that `spans` (one trace's) hold a POST /api/categories as one tree: the gateway's server
 * span (the root), its RPC client span, catalog's RPC server span, catalog's insert, the outbox
 * relay's NATS publish, the audit consumer's process span and its insert; returns them. Spans
 * finish (and arrive over OTLP) in no particular order: call it in `eventually` until it passes.
 */
export function expectCategoryCreateTrace(spans: TraceSpan[]) {
  const one = (pred: (s: TraceSpan) => boolean, what: string) => {
    const found = spans.filter(pred);
    expect(found.length, `${what} in ${spans.map((s) => s.name).join(", ")}`).toBeGreaterThanOrEqual(1);
    return found[0]!;
  };
  const gateway = one(
    (s) => s.kind === SpanKind.SERVER && s.name === "POST /api/categories",
    "gateway server span",
  );
  const rpcClient = one(
    (s) => s.kind === SpanKind.CLIENT && s.name === "fop.catalog.v1.CatalogService/CreateCategory",
    "rpc client span",
  );
  const rpcServer = one(
    (s) => s.kind === SpanKind.SERVER && s.name === "fop.catalog.v1.CatalogService/CreateCategory",
    "rpc server span",
  );
  const consumeId = spans.find((s) => s.kind === SpanKind.CONSUMER)?.spanId ?? "";
  const pgWrite = one(
    (s) =>
      isPgInsert(s) &&
      ancestors(spans, s).includes(rpcServer.spanId) &&
      !ancestors(spans, s).includes(consumeId),
    "pg insert under the service (not the consumer's)",
  );
  const publish = one(
    (s) => s.kind === SpanKind.PRODUCER && s.name.endsWith("CATEGORY_CREATED publish"),
    "NATS publish span",
  );
  const consume = one(
    (s) => s.kind === SpanKind.CONSUMER && s.name.endsWith("CATEGORY_CREATED process"),
    "NATS consume span",
  );
  const pgAudit = one(
    (s) => isPgInsert(s) && ancestors(spans, s).includes(consume.spanId),
    "pg insert under the consumer",
  );

  expect(rpcClient.parentSpanId).toBe(gateway.spanId);
  expect(rpcServer.parentSpanId).toBe(rpcClient.spanId);
  expect(ancestors(spans, pgWrite)).toContain(gateway.spanId);
  expect(ancestors(spans, publish)).toContain(rpcServer.spanId);
  expect(consume.parentSpanId).toBe(publish.spanId);
  expect(ancestors(spans, pgAudit)).toContain(gateway.spanId);
  expect(gateway.parentSpanId).toBeUndefined();
  return { gateway, rpcClient, rpcServer, pgWrite, publish, consume, pgAudit };
}
