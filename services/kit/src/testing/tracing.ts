/**
 * vitest setupFiles entry: tracing with an in-memory exporter (so every test process has real trace
 * ids and tests can inspect spans) and the pg instrumentation hooked before pg loads.
 */
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { register, supportsSyncHooks } from "import-in-the-middle/register-hooks.mjs";
import { loadConfig } from "../config.ts";
import { otelConfig, startTracing } from "../otel.ts";

const key = Symbol.for("fop.testSpans");
const g = globalThis as { [key]?: InMemorySpanExporter };

if (!g[key]) {
  if (supportsSyncHooks()) register({ include: ["pg", "pg-pool"] });
  g[key] = new InMemorySpanExporter();
  startTracing({
    serviceName: "fop-test",
    exporter: g[key],
    env: loadConfig(otelConfig),
    instrumentations: [new PgInstrumentation({ requireParentSpan: true })],
  });
}

/** Spans finished in this test process. */
export const testSpans = (): InMemorySpanExporter => g[key]!;
