/**
 * Tracing: one W3C trace per request across gateway -> RPC -> Postgres -> outbox -> NATS -> consumers.
 * {@link startTracing} starts the OpenTelemetry Node SDK (`NodeSDK`) once per process (main.ts via
 * otel-register.ts, or the test setup), configured by the standard OTEL_* variables; the rest of the
 * kit only uses @opentelemetry/api.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { getBooleanFromEnv, W3CTraceContextPropagator } from "@opentelemetry/core";
import type { Instrumentation } from "@opentelemetry/instrumentation";
import { containerDetector } from "@opentelemetry/resource-detector-container";
import {
  defaultResource,
  hostDetector,
  osDetector,
  processDetector,
  type ResourceDetector,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceInstanceIdDetector,
  serviceNameEnvDetector,
} from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  NoopSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace";
import { type ConfigOf, env } from "./config.ts";

/**
 * The standard OTEL_* variables the kit itself interprets (read with `loadConfig(otelConfig)` by
 * whoever starts tracing, and passed in); NodeSDK reads OTEL_EXPORTER_OTLP_*, OTEL_BSP_*, the span
 * limits and OTEL_SDK_DISABLED itself.
 */
export const otelConfig = {
  OTEL_TRACES_EXPORTER: env.optionalString(
    "span exporters, comma-separated: otlp, console, zipkin or none (unset: otlp where an OTLP endpoint is set, else none)",
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.optionalString("OTLP collector endpoint (all signals)"),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: env.optionalString("OTLP collector endpoint for traces"),
  OTEL_NODE_RESOURCE_DETECTORS: env.optionalString(
    "resource detectors, comma-separated: serviceinstance, process, host, os, container, env, all or none (unset: all)",
  ),
  OTEL_TRACES_SAMPLER: env.optionalString(
    "sampler: always_on, always_off, traceidratio, parentbased_always_on (unset), parentbased_always_off, parentbased_traceidratio",
  ),
  OTEL_TRACES_SAMPLER_ARG: env.optionalString("ratio 0..1 of the ratio samplers (unset: 1)"),
  OTEL_PROPAGATORS: env.optionalString(
    "propagators, as the SDK reads them (unset: tracecontext only, no baggage)",
  ),
  OTEL_METRICS_EXPORTER: env.optionalString(
    "metric exporters, as the SDK reads them (unset: none; /metrics serves Prometheus anyway)",
  ),
};
export type OtelConfig = ConfigOf<typeof otelConfig>;

export interface TracingOptions {
  /**
   * `service.name` when neither OTEL_SERVICE_NAME nor `service.name` in OTEL_RESOURCE_ATTRIBUTES
   * names one (otel-register: the name of the package whose main module runs, see {@link serviceNameOf}).
   */
  serviceName: string;
  /**
   * Export every span to this exporter, synchronously, instead of to the ones OTEL_TRACES_EXPORTER
   * names (tests use an in-memory exporter).
   */
  exporter?: SpanExporter;
  instrumentations?: Instrumentation[];
  /** Which traces are recorded (default: {@link samplerFromEnv} of `env`). */
  sampler?: Sampler;
  /** The OTEL_* variables ({@link otelConfig}). */
  env: OtelConfig;
}

type Env = Record<string, string | undefined>;

/** A comma-separated variable as the OpenTelemetry SDKs read it: trimmed entries, empty ones dropped. */
const listFromEnv = (env: Env, name: string): string[] =>
  (env[name] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");

const TRACES_EXPORTERS = ["otlp", "console", "zipkin", "none"];

/**
 * The span exporters OTEL_TRACES_EXPORTER names (NodeSDK builds them: otlp in the protocol
 * OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL names, console, zipkin). Unlike the specification's default
 * (otlp), unset means otlp only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and `none` otherwise, so that a process without a collector
 * does not retry localhost:4318 forever. Unknown names are a startup error, not a silent default.
 */
export function tracesExportersFromEnv(env: Env): string[] {
  const names = [...new Set(listFromEnv(env, "OTEL_TRACES_EXPORTER"))];
  if (names.length === 0) {
    const endpoint =
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
    return [endpoint ? "otlp" : "none"];
  }
  const unknown = names.filter((n) => !TRACES_EXPORTERS.includes(n));
  if (unknown.length > 0) {
    throw new Error(
      `OTEL_TRACES_EXPORTER ${JSON.stringify(unknown.join(","))} is not one of ${TRACES_EXPORTERS.join(", ")}`,
    );
  }
  if (names.includes("none") && names.length > 1) {
    throw new Error(`OTEL_TRACES_EXPORTER ${JSON.stringify(names.join(","))}: none excludes the others`);
  }
  return names;
}

const RESOURCE_DETECTORS: Record<string, ResourceDetector[]> = {
  serviceinstance: [serviceInstanceIdDetector],
  process: [processDetector],
  host: [hostDetector],
  os: [osDetector],
  container: [containerDetector],
  env: [], // always read, see below
};

/**
 * The resource detectors OTEL_NODE_RESOURCE_DETECTORS names (comma-separated; default `all`):
 * serviceinstance (service.instance.id), process (process.*), host (host.*), os (os.*), container
 * (container.id from the cgroup), `all` or `none`. OTEL_RESOURCE_ATTRIBUTES (where the Kubernetes
 * Downward API or the OpenTelemetry operator put k8s.pod.name, k8s.namespace.name, ...) and then
 * OTEL_SERVICE_NAME are always read, last, so they win over what the detectors found.
 */
export function resourceDetectorsFromEnv(env: Env): ResourceDetector[] {
  let names = listFromEnv(env, "OTEL_NODE_RESOURCE_DETECTORS");
  const unknown = names.filter((n) => n !== "all" && n !== "none" && !(n in RESOURCE_DETECTORS));
  if (unknown.length > 0) {
    throw new Error(
      `OTEL_NODE_RESOURCE_DETECTORS ${JSON.stringify(unknown.join(","))} is not one of all, none, ${Object.keys(RESOURCE_DETECTORS).join(", ")}`,
    );
  }
  if (names.length === 0 || names.includes("all")) names = Object.keys(RESOURCE_DETECTORS);
  else if (names.includes("none")) names = [];
  return [
    ...new Set(names.flatMap((n) => RESOURCE_DETECTORS[n]!)),
    resourceAttributesEnvDetector,
    serviceNameEnvDetector,
  ];
}

/**
 * The service a main module belongs to: the name of the nearest package.json above it without its
 * scope (services/catalog/src/main.ts -> "catalog", gateway/src/main.ts -> "gateway"), else "fop".
 */
export function serviceNameOf(mainModule: string | undefined): string {
  if (!mainModule) return "fop";
  for (let dir = path.dirname(path.resolve(mainModule)); ; dir = path.dirname(dir)) {
    try {
      const name = (JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown })
        .name;
      if (typeof name === "string" && name) return name.replace(/^@[^/]+\//, "");
    } catch {}
    if (path.dirname(dir) === dir) return "fop";
  }
}

/**
 * The sampler OTEL_TRACES_SAMPLER names (with OTEL_TRACES_SAMPLER_ARG, the ratio 0..1 of the
 * ratio samplers), as the OpenTelemetry specification defines them: always_on, always_off,
 * traceidratio, parentbased_always_on (the default), parentbased_always_off,
 * parentbased_traceidratio. Names are read case-insensitively. Unknown names or ratios are a startup
 * error, not a silent default (NodeSDK's own reading of these variables falls back to the default
 * sampler and says so only when OTEL_LOG_LEVEL is set).
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

let installed: { sdk: NodeSDK | undefined } | undefined;

/**
 * Starts the OpenTelemetry Node SDK once per process (idempotent): context manager, propagators
 * (OTEL_PROPAGATORS; unset: tracecontext only — not the spec's tracecontext,baggage, because the
 * gateway faces the public and every event stores the propagated context: a caller's baggage
 * would ride along into every outbox row and NATS message; set it to opt in), resource ({@link resourceDetectorsFromEnv}),
 * sampler ({@link samplerFromEnv}), span exporters ({@link tracesExportersFromEnv}; NodeSDK reads
 * OTEL_EXPORTER_OTLP_*, OTEL_BSP_* and the span limits itself) and `instrumentations`.
 * OTEL_SDK_DISABLED=true starts nothing: no spans, no trace ids, nothing propagated.
 *
 * Spans get real ids even when nothing is exported (the `traceresponse` header, the logs' trace_id,
 * the audit records' trace). Only traces leave the process: metrics are exported only when
 * OTEL_METRICS_EXPORTER asks for it (each process serves Prometheus /metrics anyway), and no OTel
 * log records are produced (logs are JSON lines on stdout, with trace_id and span_id).
 */
export function startTracing(opts: TracingOptions): { shutdown: () => Promise<void> } {
  if (!installed) {
    const { env } = opts;
    if (getBooleanFromEnv("OTEL_SDK_DISABLED")) installed = { sdk: undefined };
    else {
      const spanProcessors = opts.exporter
        ? [new SimpleSpanProcessor({ exporter: opts.exporter })]
        : tracesExportersFromEnv(env)[0] === "none"
          ? // NodeSDK installs no tracer provider without a span processor, and ids need one.
            [new NoopSpanProcessor()]
          : undefined; // NodeSDK builds the exporters OTEL_TRACES_EXPORTER names, each batched
      const sdk = new NodeSDK({
        resource: defaultResource().merge(resourceFromAttributes({ "service.name": opts.serviceName })),
        resourceDetectors: resourceDetectorsFromEnv(env),
        sampler: opts.sampler ?? samplerFromEnv(env.OTEL_TRACES_SAMPLER, env.OTEL_TRACES_SAMPLER_ARG),
        ...(spanProcessors ? { spanProcessors } : {}),
        ...(env.OTEL_PROPAGATORS?.trim() ? {} : { textMapPropagator: new W3CTraceContextPropagator() }),
        ...(env.OTEL_METRICS_EXPORTER?.trim() ? {} : { metricReaders: [] }),
        logRecordProcessors: [],
        instrumentations: opts.instrumentations ?? [],
      });
      sdk.start();
      installed = { sdk };
    }
  }
  return { shutdown: shutdownTracing };
}

/** Flushes and stops the SDK (graceful shutdown: no buffered span is lost). */
export async function shutdownTracing(): Promise<void> {
  await installed?.sdk?.shutdown().catch(() => {});
}

export const tracer = () => trace.getTracer("fop");

/** Trace id of the active span, "" when there is none. */
export function currentTraceId(ctx: Context = context.active()): string {
  const sc = trace.getSpanContext(ctx);
  return sc && isSpanContextValid(sc) ? sc.traceId : "";
}

const hexFlags = (flags: number) => flags.toString(16).padStart(2, "0");

/**
 * The active span as log fields, named as OpenTelemetry names them for logs (trace_id, span_id,
 * trace_flags: "01" when the trace is sampled, i.e. exported); none without a span.
 */
export function traceLogFields(
  ctx: Context = context.active(),
): { trace_id: string; span_id: string; trace_flags: string } | undefined {
  const sc = trace.getSpanContext(ctx);
  return sc && isSpanContextValid(sc)
    ? { trace_id: sc.traceId, span_id: sc.spanId, trace_flags: hexFlags(sc.traceFlags) }
    : undefined;
}

/** W3C `traceresponse` value for the active span ("" when none, e.g. with OTEL_SDK_DISABLED=true). */
export function traceResponseHeader(ctx: Context = context.active()): string {
  const sc = trace.getSpanContext(ctx);
  if (!sc || !isSpanContextValid(sc)) return "";
  return `00-${sc.traceId}-${sc.spanId}-${hexFlags(sc.traceFlags)}`;
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
  // By shape, not class: the RPC fast path's headers (connect-h2-wire.ts CallHeaders) are no Fetch Headers.
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
