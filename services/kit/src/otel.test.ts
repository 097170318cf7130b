import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from "@opentelemetry/api";
import { SamplingDecision } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { samplerFromEnv } from "./otel.ts";

/** The sampler's decision for a new trace id, as a root span or under a parent with `sampled`. */
function decide(name: string | undefined, arg: string | undefined, traceId: string, parent?: boolean) {
  const ctx =
    parent === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId: "1".repeat(16),
          traceFlags: parent ? TraceFlags.SAMPLED : TraceFlags.NONE,
          isRemote: true,
        });
  return samplerFromEnv(name, arg).shouldSample(ctx, traceId, "span", SpanKind.SERVER, {}, []).decision;
}

const LOW = "00000000000000000000000000000001"; // the lowest trace ids pass any ratio > 0
// The ratio sampler folds the id's four 32-bit words by XOR: this one folds to 0xffffffff.
const HIGH = `ffffffff${"0".repeat(24)}`;
const { RECORD_AND_SAMPLED: SAMPLED, NOT_RECORD: DROPPED } = SamplingDecision;

describe("samplerFromEnv (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG)", () => {
  it.each([
    // name, arg, trace id, parent sampled?, decision
    [undefined, undefined, HIGH, undefined, SAMPLED],
    ["parentbased_always_on", undefined, HIGH, false, DROPPED],
    ["parentbased_always_on", undefined, HIGH, true, SAMPLED],
    ["always_on", undefined, HIGH, false, SAMPLED],
    ["always_off", undefined, LOW, true, DROPPED],
    ["traceidratio", "0.5", LOW, undefined, SAMPLED],
    ["traceidratio", "0.5", HIGH, undefined, DROPPED],
    ["traceidratio", "0", LOW, undefined, DROPPED],
    ["parentbased_traceidratio", "0.1", HIGH, true, SAMPLED],
    ["parentbased_traceidratio", "0.1", HIGH, undefined, DROPPED],
    ["parentbased_always_off", undefined, LOW, undefined, DROPPED],
    [" ALWAYS_ON ", undefined, HIGH, undefined, SAMPLED],
  ] as const)("%s (arg %s), trace %s, parent sampled %s -> %s", (name, arg, id, parent, want) => {
    expect(decide(name, arg, id, parent)).toBe(want);
  });

  it("refuses unknown samplers and ratios outside 0..1", () => {
    expect(() => samplerFromEnv("sometimes", undefined)).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => samplerFromEnv("traceidratio", "2")).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => samplerFromEnv("parentbased_traceidratio", "half")).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});
