/**
 * Loaded with `node --import @fop/kit/otel-register` before a service's main module, so that the
 * pg instrumentation hooks pg before anything imports them (ESM needs the
 * import-in-the-middle loader hook registered first). Configured by OTEL_SERVICE_NAME and
 * OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER (+ _ARG) choose which traces are recorded;
 * OTEL_SDK_DISABLED=true turns tracing off.
 */
import { DiagConsoleLogger, DiagLogLevel, diag } from "@opentelemetry/api";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { register, supportsSyncHooks } from "import-in-the-middle/register-hooks.mjs";
import { startTracing } from "./otel.ts";

const level = process.env.OTEL_LOG_LEVEL?.toUpperCase() as keyof typeof DiagLogLevel | undefined;
if (level && level in DiagLogLevel) diag.setLogger(new DiagConsoleLogger(), DiagLogLevel[level]);

if (process.env.OTEL_SDK_DISABLED !== "true") {
  if (supportsSyncHooks()) register({ include: ["pg", "pg-pool"] });
  startTracing({
    serviceName: process.env.OTEL_SERVICE_NAME ?? "fop",
    otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
    // One span per statement: no spans for taking a pooled connection (pg-pool.connect, pg.connect).
    instrumentations: [new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true })],
  });
}
