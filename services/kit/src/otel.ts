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
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

export interface TracingOptions {
  serviceName: string;
  /** OTLP/HTTP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); without it and without `exporter` spans are not exported. */
  otlpEndpoint?: string | undefined;
  /** Export to this exporter synchronously (tests use an in-memory exporter). */
  exporter?: SpanExporter;
  instrumentations?: Instrumentation[];
  /** Which traces are recorded (default: {@link samplerFromEnv} of this process's environment). */
  sampler?: Sampler;
}

/**
 * The sampler OTEL_TRACES_SAMPLER names (with OTEL_TRACES_SAMPLER_ARG, the ratio 0..1 of the
 * ratio samplers), as the OpenTelemetry specification defines them: always_on, always_off,
 * traceidratio, parentbased_always_on (the default), parentbased_always_off,
 * parentbased_traceidratio. Unknown names or ratios are a startup error, not a silent default.
 */
export function samplerFromEnv(name: string | undefined, arg: string | undefined): Sampler {
  const ratio = () => {
    const r = arg === undefined || arg === "" ? 1 : Number(arg);
    if (!Number.isFinite(r) || r < 0 || r > 1) {
      throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, not ${JSON.stringify(arg)}`);
    }
    return new TraceIdRatioBasedSampler(r);
  };
  switch ((name ?? "").trim().toLowerCase()) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio();
    case "":
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio() });
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER ${JSON.stringify(name)} is not one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio`,
      );
  }
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
    sampler:
      opts.sampler ?? samplerFromEnv(process.env.OTEL_TRACES_SAMPLER, process.env.OTEL_TRACES_SAMPLER_ARG),
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
  // By shape, not class: the RPC fast path's headers (connect-h2 CallHeaders) are no Fetch Headers.
  return typeof (carrier as Headers).get === "function"
    ? propagation.extract(ROOT_CONTEXT, carrier as Headers, headersGetter)
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
