/** A service process exports its spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, under its own service name. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let collector: OtlpReceiver;
let sys: System;

beforeAll(async () => {
  collector = await startOtlpReceiver();
  sys = await startSystem({
    childProcesses: ["catalog"],
    serviceEnv: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_SERVICE_NAME: "catalog",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_LOG_LEVEL: process.env.OTLP_DEBUG ? "debug" : "",
    },
  });
});
afterAll(async () => {
  await sys?.close();
  await collector?.close();
});

describe("OTLP export", () => {
  it("sends the service's spans, in the request's trace, named after the service", async () => {
    const api = sys.as(await sys.token("otlp"));
    const res = await api("POST", "/api/categories", { nameLocalized: { en_US: "exported" } });
    expect(res.status).toBe(201);
    const traceId = res.headers.get("traceresponse")!.split("-")[1]!;
    const spans = await eventually(async () => {
      const mine = collector.spans.filter((s) => s.traceId === traceId);
      return mine.some((s) => s.name.startsWith("pg.query:")) ? mine : undefined;
    }, 20_000);
    // The SDK's default encoding: OTLP/HTTP protobuf.
    expect(collector.contentTypes).toContain("application/x-protobuf");
    expect(new Set(spans.map((s) => s.resource["service.name"]))).toEqual(new Set(["catalog"]));
    expect(spans.map((s) => s.name)).toContain("fop.catalog.v1.CatalogService/CreateCategory");
    // The create's one statement (its row and outbox row: WITH ... INSERT, a prepared statement
    // named after its operation), a span of its own.
    expect(spans.some((s) => /^pg\.query:(INSERT|WITH)[_ ]/.test(s.name))).toBe(true);
  });
});
