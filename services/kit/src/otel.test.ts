import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT_CONTEXT, SpanKind, TraceFlags, trace } from "@opentelemetry/api";
import { containerDetector } from "@opentelemetry/resource-detector-container";
import {
  hostDetector,
  osDetector,
  processDetector,
  resourceAttributesEnvDetector,
  serviceInstanceIdDetector,
  serviceNameEnvDetector,
} from "@opentelemetry/resources";
import { SamplingDecision } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import {
  resourceDetectorsFromEnv,
  samplerFromEnv,
  serviceNameOf,
  traceLogFields,
  traceResponseHeader,
  tracesExportersFromEnv,
} from "./otel.ts";

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

describe("tracesExportersFromEnv (OTEL_TRACES_EXPORTER)", () => {
  it.each([
    [{}, ["none"]],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, ["otlp"]],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, ["otlp"]],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, ["none"]],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, ["none"]],
    [{ OTEL_TRACES_EXPORTER: "console" }, ["console"]],
    [{ OTEL_TRACES_EXPORTER: " otlp , console,otlp," }, ["otlp", "console"]],
    [{ OTEL_TRACES_EXPORTER: "" }, ["none"]],
  ])("%j -> %j", (env, want) => {
    expect(tracesExportersFromEnv(env)).toEqual(want);
  });

  it("refuses unknown exporters and none with others", () => {
    expect(() => tracesExportersFromEnv({ OTEL_TRACES_EXPORTER: "jaeger" })).toThrow(
      /OTEL_TRACES_EXPORTER "jaeger"/,
    );
    expect(() => tracesExportersFromEnv({ OTEL_TRACES_EXPORTER: "OTLP" })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => tracesExportersFromEnv({ OTEL_TRACES_EXPORTER: "none,console" })).toThrow(/none excludes/);
  });
});

describe("resourceDetectorsFromEnv (OTEL_NODE_RESOURCE_DETECTORS)", () => {
  const env = [resourceAttributesEnvDetector, serviceNameEnvDetector];
  const all = [serviceInstanceIdDetector, processDetector, hostDetector, osDetector, containerDetector];
  it.each([
    [undefined, [...all, ...env]],
    ["all", [...all, ...env]],
    ["none", env],
    ["env", env],
    ["container, host,container", [containerDetector, hostDetector, ...env]],
  ])("%s", (value, want) => {
    expect(resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: value })).toEqual(want);
  });

  it("refuses unknown detectors", () => {
    expect(() => resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: "host,gcp" })).toThrow(/"gcp"/);
  });
});

describe("serviceNameOf (the default service.name)", () => {
  it("is the unscoped name of the nearest package.json above the main module", () => {
    const root = mkdtempSync(path.join(tmpdir(), "svc-name-"));
    mkdirSync(path.join(root, "services/catalog/src"), { recursive: true });
    mkdirSync(path.join(root, "services/catalog/src/nested"), { recursive: true });
    writeFileSync(path.join(root, "services/catalog/package.json"), JSON.stringify({ name: "@fop/catalog" }));
    writeFileSync(
      path.join(root, "services/catalog/src/nested/package.json"),
      JSON.stringify({ type: "module" }),
    );
    expect(serviceNameOf(path.join(root, "services/catalog/src/main.ts"))).toBe("catalog");
    expect(serviceNameOf(path.join(root, "services/catalog/src/nested/x.ts"))).toBe("catalog");
    expect(serviceNameOf(path.join(root, "elsewhere/main.ts"))).toBe("fop");
    expect(serviceNameOf(undefined)).toBe("fop");
    expect(serviceNameOf(path.resolve(import.meta.dirname, "../../../gateway/src/main.ts"))).toBe("gateway");
  });
});

describe("trace context outside a span", () => {
  const invalid = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: "0".repeat(32),
    spanId: "0".repeat(16),
    traceFlags: TraceFlags.NONE,
  });
  it("gives no traceresponse and no log fields for no span or an invalid one (tracing off)", () => {
    expect(traceResponseHeader(ROOT_CONTEXT)).toBe("");
    expect(traceResponseHeader(invalid)).toBe("");
    expect(traceLogFields(ROOT_CONTEXT)).toBeUndefined();
    expect(traceLogFields(invalid)).toBeUndefined();
  });
});
