/** One request is one trace: gateway -> Connect RPC -> Postgres -> outbox -> NATS -> consumer -> Postgres. */
import { testSpans } from "@fop/kit/testing/tracing";
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type System, startSystem } from "../support/system.ts";

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.close());

describe("tracing", () => {
  it("captures gateway, service, pg and NATS publish/consume spans in one trace", async () => {
    const api = sys.as(await sys.token("traced"));
    const res = await api("POST", "/api/categories", { nameLocalized: { en_US: "traced" } });
    expect(res.status).toBe(201);
    const traceId = res.headers.get("traceresponse")!.split("-")[1]!;

    const spans = await eventually(async () => {
      const mine = testSpans()
        .getFinishedSpans()
        .filter((s) => s.spanContext().traceId === traceId);
      return mine.some((s) => isPgInsert(s) && parentChainHas(mine, s, SpanKind.CONSUMER)) ? mine : undefined;
    });
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    const one = (pred: (s: ReadableSpan) => boolean, what: string) => {
      const found = spans.filter(pred);
      expect(found.length, what).toBeGreaterThanOrEqual(1);
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
    const consumeId = () => spans.find((s) => s.kind === SpanKind.CONSUMER)?.spanContext().spanId;
    const pgWrite = one(
      (s) =>
        isPgInsert(s) &&
        ancestors(byId, s).includes(rpcServer.spanContext().spanId) &&
        !ancestors(byId, s).includes(consumeId() ?? ""),
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
      (s) => isPgInsert(s) && ancestors(byId, s).includes(consume.spanContext().spanId),
      "pg insert under the consumer",
    );

    expect(parentOf(byId, rpcClient)).toBe(gateway.spanContext().spanId);
    expect(parentOf(byId, rpcServer)).toBe(rpcClient.spanContext().spanId);
    expect(ancestors(byId, pgWrite)).toContain(gateway.spanContext().spanId);
    expect(ancestors(byId, publish)).toContain(rpcServer.spanContext().spanId);
    expect(parentOf(byId, consume)).toBe(publish.spanContext().spanId);
    expect(ancestors(byId, pgAudit)).toContain(gateway.spanContext().spanId);
    expect(gateway.parentSpanContext).toBeUndefined();
  });
});

/** A Postgres statement span whose statement inserts (a plain INSERT or one inside WITH). */
function isPgInsert(s: ReadableSpan): boolean {
  const text = String(s.attributes["db.statement"] ?? s.attributes["db.query.text"] ?? "");
  return s.name.startsWith("pg.query:") && /\binsert\s+into\b/i.test(text);
}

function parentOf(_byId: Map<string, ReadableSpan>, s: ReadableSpan): string | undefined {
  return s.parentSpanContext?.spanId;
}

function ancestors(byId: Map<string, ReadableSpan>, s: ReadableSpan): string[] {
  const out: string[] = [];
  let p = s.parentSpanContext?.spanId;
  while (p) {
    out.push(p);
    p = byId.get(p)?.parentSpanContext?.spanId;
  }
  return out;
}

function parentChainHas(spans: ReadableSpan[], s: ReadableSpan, kind: SpanKind): boolean {
  const byId = new Map(spans.map((x) => [x.spanContext().spanId, x]));
  return ancestors(byId, s).some((id) => byId.get(id)?.kind === kind);
}
