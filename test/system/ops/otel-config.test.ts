/**
 * Tracing configured the way SREs configure OpenTelemetry: only the standard OTEL_* variables, on
 * real processes (gateway, catalog and audit started as deployed, `node --import
 * @fop/kit/otel-register`) exporting to a local OTLP/HTTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";
import { expectCategoryCreateTrace } from "../../support/traces.ts";

const GATEWAY_NAME = "fop-edge";
// What the Downward API or the OpenTelemetry operator put into a pod's environment.
const K8S_ATTRIBUTES = "k8s.pod.name=p-1,k8s.namespace.name=ns";

/**
 * A system whose gateway, catalog and audit run as processes with `otel` (plus an OTLP endpoint:
 * the receiver) in their environment; the gateway also gets OTEL_SERVICE_NAME, the services do not.
 */
async function startTracedSystem(collector: OtlpReceiver, otel: Record<string, string>): Promise<System> {
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_RESOURCE_ATTRIBUTES: K8S_ATTRIBUTES,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    ...otel,
  };
  return startSystem({
    childProcesses: ["catalog", "audit"],
    gatewayChildProcess: true,
    serviceEnv: env,
    // The gateway exports OTLP/JSON; the services the default, OTLP/protobuf.
    gatewayEnv: { ...env, OTEL_SERVICE_NAME: GATEWAY_NAME, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
  });
}

/** Creates a category and waits until the audit consumer has recorded it; returns the create's response. */
async function createAndAudit(sys: System) {
  const api = sys.as(await sys.token("otel-config"));
  const created = await api("POST", "/api/categories", { nameLocalized: { en_US: "configured" } });
  expect(created.status).toBe(201);
  const audit = await eventually(async () => {
    const res = await api("POST", "/api/audits/search", { query: { entityRef: { eq: created.body.id } } });
    expect(res.status).toBe(200);
    return res.body.audits[0] as { trace?: string } | undefined;
  });
  return { created, audit };
}

describe("OTEL_TRACES_SAMPLER=always_on", () => {
  let collector: OtlpReceiver;
  let sys: System;
  beforeAll(async () => {
    collector = await startOtlpReceiver();
    sys = await startTracedSystem(collector, { OTEL_TRACES_SAMPLER: "always_on" });
  });
  afterAll(async () => {
    await sys?.close();
    await collector?.close();
  });

  it("exports one trace across gateway, catalog, Postgres and NATS, with each process's resource", async () => {
    const { created } = await createAndAudit(sys);
    const [, traceId, , flags] = created.headers.get("traceresponse")!.split("-");
    expect(flags).toBe("01");
    const spans = () => collector.spans.filter((s) => s.traceId === traceId);
    const t = await eventually(async () => expectCategoryCreateTrace(spans()), 20_000);

    // service.name: OTEL_SERVICE_NAME where set, else the process's package.
    expect(t.gateway.resource["service.name"]).toBe(GATEWAY_NAME);
    expect(t.rpcClient.resource["service.name"]).toBe(GATEWAY_NAME);
    for (const s of [t.rpcServer, t.pgWrite, t.publish]) expect(s.resource["service.name"]).toBe("catalog");
    for (const s of [t.consume, t.pgAudit]) expect(s.resource["service.name"]).toBe("audit");
    for (const s of spans()) {
      expect(s.resource).toMatchObject({
        "k8s.pod.name": "p-1",
        "k8s.namespace.name": "ns",
        "host.name": expect.any(String),
        "host.arch": expect.any(String),
        "os.type": expect.any(String),
        "process.pid": expect.any(Number),
        "process.runtime.name": "nodejs",
        "service.instance.id": expect.any(String),
        "telemetry.sdk.language": "nodejs",
      });
    }
    // Three processes, each with its own resource.
    expect(new Set([t.gateway, t.rpcServer, t.consume].map((s) => s.resource["process.pid"])).size).toBe(3);
    expect(new Set(collector.contentTypes)).toEqual(new Set(["application/json", "application/x-protobuf"]));
  });
});

describe("OTEL_TRACES_SAMPLER=traceidratio, OTEL_TRACES_SAMPLER_ARG=0", () => {
  let collector: OtlpReceiver;
  let sys: System | undefined;
  beforeAll(async () => {
    collector = await startOtlpReceiver();
    sys = await startTracedSystem(collector, {
      OTEL_SERVICE_NAME: "sampled-out",
      OTEL_TRACES_SAMPLER: "traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
    });
  });
  afterAll(async () => {
    await sys?.close();
    await collector?.close();
  });

  it("serves requests and exports no span, while the trace id still reaches the response and the audit record", async () => {
    const { created, audit } = await createAndAudit(sys!);
    const [, traceId, , flags] = created.headers.get("traceresponse")!.split("-");
    expect(flags).toBe("00");
    expect(audit.trace).toBe(traceId);
    // Closing shuts every process down gracefully, which flushes whatever its exporter holds.
    await sys!.close();
    sys = undefined;
    expect(collector.spans).toEqual([]);
    expect(collector.contentTypes).toEqual([]);
  });
});

describe("OTEL_SDK_DISABLED=true", () => {
  let collector: OtlpReceiver;
  let sys: System | undefined;
  beforeAll(async () => {
    collector = await startOtlpReceiver();
    sys = await startTracedSystem(collector, { OTEL_SDK_DISABLED: "true", OTEL_TRACES_SAMPLER: "always_on" });
  });
  afterAll(async () => {
    await sys?.close();
    await collector?.close();
  });

  it("serves requests without any tracing: no traceresponse, nothing exported", async () => {
    const { created } = await createAndAudit(sys!);
    expect(created.headers.get("traceresponse")).toBeNull();
    await sys!.close();
    sys = undefined;
    expect(collector.spans).toEqual([]);
    expect(collector.contentTypes).toEqual([]);
  });
});
