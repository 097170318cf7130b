/**
 * Tracing: one W3C trace per request across gateway -> RPC -> Postgres -> outbox -> NATS -> consumers.
 * {@link startTracing} installs the global tracer provider once per process (main.ts via
 * otel-register.ts, or the test setup); the rest of the kit only uses @opentelemetry/api.
 */
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { type Instrumentation, registerInstrumentations } from "@opentelemetry/instrumentation";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

export interface TracingOptions {
  serviceName: string;
  /** OTLP/HTTP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); without it and without `exporter` spans are not exported. */
  otlpEndpoint?: string | undefined;
  /** Export to this exporter synchronously (tests use an in-memory exporter). */
  exporter?: SpanExporter;
  instrumentations?: Instrumentation[];
}

let installed: { provider: TracerProvider; serviceName: string } | undefined;

/** Installs the process-wide tracer provider, context manager and W3C propagator (idempotent). */
export function startTracing(opts: TracingOptions): { shutdown: () => Promise<void> } {
  if (installed) return { shutdown: () => installed?.provider.shutdown() ?? Promise.resolve() };
  const spanProcessors: SpanProcessor[] = [];
  if (opts.exporter) spanProcessors.push(new SimpleSpanProcessor({ exporter: opts.exporter }));
  if (opts.otlpEndpoint) {
    const url = `${opts.otlpEndpoint.replace(/\/$/, "")}/v1/traces`;
    spanProcessors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) }));
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": opts.serviceName }),
    spanProcessors,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  if (opts.instrumentations?.length) registerInstrumentations({ instrumentations: opts.instrumentations });
  installed = { provider, serviceName: opts.serviceName };
  return { shutdown: () => provider.shutdown() };
}

/** Flushes and stops the installed provider (graceful shutdown: no buffered span is lost). */
export async function shutdownTracing(): Promise<void> {
  await installed?.provider.shutdown().catch(() => {});
}

export const tracer = () => trace.getTracer("fop");

/** Trace id of the active span, "" when there is none. */
export function currentTraceId(ctx: Context = context.active()): string {
  const sc = trace.getSpanContext(ctx);
  return sc && sc.traceId !== "00000000000000000000000000000000" ? sc.traceId : "";
}

/** W3C `traceresponse` value for the active span ("" when none). */
export function traceResponseHeader(ctx: Context = context.active()): string {
  const sc = trace.getSpanContext(ctx);
  if (!sc) return "";
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, "0")}`;
}

/** Writes `traceparent` (and `tracestate`) of `ctx` into a plain header record. */
export function injectTraceHeaders(carrier: Record<string, string>, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier);
}

const headersGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};
const recordGetter: TextMapGetter<Record<string, string | string[] | undefined>> = {
  get: (carrier, key) => carrier[key],
  keys: (carrier) => Object.keys(carrier),
};

/** Context carried by incoming headers (Fetch Headers or a plain record). */
export function extractTraceContext(
  carrier: Headers | Record<string, string | string[] | undefined>,
): Context {
  return carrier instanceof Headers
    ? propagation.extract(ROOT_CONTEXT, carrier, headersGetter)
    : propagation.extract(ROOT_CONTEXT, carrier, recordGetter);
}

/**
 * Runs `fn` in a new span (child of `parent`, default: the active context); records errors and
 * ends the span when `fn` settles.
 */
export async function withSpan<T>(
  name: string,
  opts: { kind?: SpanKind; attributes?: Record<string, string | number | boolean>; parent?: Context },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = opts.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

export type { Context as OtelContext, Span };
export { context as otelContext, SpanKind, SpanStatusCode, trace as otelTrace };
