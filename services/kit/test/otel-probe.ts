/**
 * Run by otel-env.test.ts under `node --import @fop/kit/otel-register` with the OTEL_* variables of a
 * case: records one span, propagates it, and prints what the SDK made of the environment as one
 * `PROBE {...}` line.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { currentTraceId, shutdownTracing, traceResponseHeader } from "../src/otel.ts";

const span = trace.getTracer("probe").startSpan("probe-span");
const carrier: Record<string, string> = {};
// Baggage a caller might send: propagated only when OTEL_PROPAGATORS names baggage.
const ctx = propagation.setBaggage(
  trace.setSpan(context.active(), span),
  propagation.createBaggage({ k: { value: "v" } }),
);
propagation.inject(ctx, carrier);
const resource = (span as { resource?: { attributes: object; waitForAsyncAttributes?: () => Promise<void> } })
  .resource;
await resource?.waitForAsyncAttributes?.();
const recording = span.isRecording();
span.end();
console.log(
  `PROBE ${JSON.stringify({
    traceId: currentTraceId(ctx),
    recording,
    sampled: (span.spanContext().traceFlags & 1) === 1,
    traceresponse: traceResponseHeader(ctx),
    headers: carrier,
    resource: resource?.attributes ?? null,
  })}`,
);
await shutdownTracing();
