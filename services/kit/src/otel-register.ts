/**
 * Loaded with `node --import @fop/kit/otel-register` before a service's main module, so that the
 * pg instrumentation hooks pg before anything imports it (ESM needs the import-in-the-middle loader
 * hook registered first), then starts the OpenTelemetry Node SDK ({@link startTracing}), configured
 * by the standard OTEL_* variables (deploy/README.md, "Tracing"). `service.name` defaults to the
 * running package's name (catalog, gateway, ...); OTEL_SDK_DISABLED=true turns tracing off.
 */
import { getBooleanFromEnv } from "@opentelemetry/core";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { register, supportsSyncHooks } from "import-in-the-middle/register-hooks.mjs";
import { loadConfig } from "./config.ts";
import { otelConfig, serviceNameOf, startTracing } from "./otel.ts";

if (!getBooleanFromEnv("OTEL_SDK_DISABLED")) {
  if (supportsSyncHooks()) register({ include: ["pg", "pg-pool"] });
  startTracing({
    serviceName: serviceNameOf(process.argv[1]),
    env: loadConfig(otelConfig),
    // One span per statement: no spans for taking a pooled connection (pg-pool.connect, pg.connect).
    instrumentations: [new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true })],
  });
}
