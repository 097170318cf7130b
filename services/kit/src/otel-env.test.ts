/**
 * What the OTEL_* variables do to a real process started like a service
 * (`node --import @fop/kit/otel-register`): resource, service name, sampler, exporter, propagators,
 * OTEL_SDK_DISABLED. One child process per case (the SDK is process-global).
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const PROBE = path.resolve(import.meta.dirname, "../test/otel-probe.ts");

interface Probe {
  traceId: string;
  recording: boolean;
  sampled: boolean;
  traceresponse: string;
  headers: Record<string, string>;
  resource: Record<string, unknown> | null;
}

/** Runs the probe with only `env`'s OTEL_* variables (none inherited from this process). */
async function probe(env: Record<string, string>): Promise<{ probe: Probe; stdout: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--conditions=source", "--import", "@fop/kit/otel-register", PROBE],
    { env: { ...clean, ...env }, cwd: import.meta.dirname, timeout: 20_000 },
  );
  const line = stdout.split("\n").find((l) => l.startsWith("PROBE "));
  if (!line) throw new Error(`no PROBE line in ${stdout}`);
  return { probe: JSON.parse(line.slice("PROBE ".length)) as Probe, stdout };
}

describe("otel-register in a process", () => {
  it("without any OTEL_* variable: recorded spans with ids, service.name of the package, host/process/os/container resource, W3C propagation", async () => {
    const { probe: p } = await probe({});
    expect(p.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(p.recording).toBe(true);
    expect(p.traceresponse).toMatch(new RegExp(`^00-${p.traceId}-[0-9a-f]{16}-01$`));
    expect(p.headers.traceparent).toMatch(new RegExp(`^00-${p.traceId}-`));
    expect(p.resource).toMatchObject({
      "service.name": "kit",
      "telemetry.sdk.language": "nodejs",
      "host.name": expect.any(String),
      "host.arch": expect.any(String),
      "os.type": expect.any(String),
      "process.pid": expect.any(Number),
      "process.runtime.name": "nodejs",
      "service.instance.id": expect.any(String),
    });
  });

  it("OTEL_RESOURCE_ATTRIBUTES adds attributes (the Kubernetes ones); OTEL_SERVICE_NAME wins over its service.name", async () => {
    const attrs = "k8s.pod.name=p-1,k8s.namespace.name=ns,service.name=from-attributes,host.name=pinned";
    const [withName, withoutName] = await Promise.all([
      probe({ OTEL_RESOURCE_ATTRIBUTES: attrs, OTEL_SERVICE_NAME: "picked" }),
      probe({ OTEL_RESOURCE_ATTRIBUTES: attrs }),
    ]);
    expect(withName.probe.resource).toMatchObject({
      "service.name": "picked",
      "k8s.pod.name": "p-1",
      "k8s.namespace.name": "ns",
      "host.name": "pinned", // the variable wins over the detectors
    });
    expect(withoutName.probe.resource?.["service.name"]).toBe("from-attributes");
  });

  it("OTEL_NODE_RESOURCE_DETECTORS=none leaves the SDK's and the variables' attributes only", async () => {
    const { probe: p } = await probe({
      OTEL_NODE_RESOURCE_DETECTORS: "none",
      OTEL_RESOURCE_ATTRIBUTES: "k8s.pod.name=p-1",
    });
    expect(Object.keys(p.resource ?? {}).sort()).toEqual([
      "k8s.pod.name",
      "service.name",
      "telemetry.sdk.language",
      "telemetry.sdk.name",
      "telemetry.sdk.version",
    ]);
  });

  it("OTEL_TRACES_SAMPLER=traceidratio with ratio 0: ids and propagation, nothing recorded", async () => {
    const { probe: p } = await probe({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" });
    expect(p.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(p.recording).toBe(false);
    expect(p.traceresponse).toMatch(/-00$/);
    expect(p.headers.traceparent).toMatch(/-00$/);
  });

  it("OTEL_TRACES_EXPORTER=console prints the spans", async () => {
    const { stdout } = await probe({ OTEL_TRACES_EXPORTER: "console" });
    expect(stdout).toContain("probe-span");
  });

  it("propagates traceparent only by default; baggage when OTEL_PROPAGATORS names it", async () => {
    const { probe: plain } = await probe({});
    expect(Object.keys(plain.headers)).toEqual(["traceparent"]);
    const { probe: withBaggage } = await probe({ OTEL_PROPAGATORS: "tracecontext,baggage" });
    expect(withBaggage.headers).toMatchObject({ traceparent: expect.any(String), baggage: "k=v" });
  });

  it("OTEL_PROPAGATORS=b3multi propagates B3 headers instead of traceparent", async () => {
    const { probe: p } = await probe({ OTEL_PROPAGATORS: "b3multi" });
    expect(p.headers["x-b3-traceid"]).toBe(p.traceId);
    expect(p.headers.traceparent).toBeUndefined();
  });

  it("OTEL_SDK_DISABLED=true: no spans, no ids, nothing propagated, no traceresponse", async () => {
    const { probe: p, stdout } = await probe({ OTEL_SDK_DISABLED: "true", OTEL_TRACES_EXPORTER: "console" });
    expect(stdout).not.toContain("probe-span");
    expect(p).toMatchObject({
      traceId: "",
      recording: false,
      traceresponse: "",
      headers: {},
      resource: null,
    });
  });

  it("refuses an unknown exporter or sampler at startup", async () => {
    await expect(probe({ OTEL_TRACES_EXPORTER: "jaeger" })).rejects.toThrow(/OTEL_TRACES_EXPORTER/);
    await expect(probe({ OTEL_TRACES_SAMPLER: "sometimes" })).rejects.toThrow(/OTEL_TRACES_SAMPLER/);
  });
});
