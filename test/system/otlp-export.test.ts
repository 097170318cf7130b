/** A service process exports its spans over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set, under its own service name. */
import { fastify } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type System, startSystem } from "../support/system.ts";

const received: { serviceNames: string[]; spanNames: string[]; traceIds: string[] } = {
  serviceNames: [],
  spanNames: [],
  traceIds: [],
};
const collector = fastify({ bodyLimit: 20 * 1024 * 1024 });
let sys: System;

beforeAll(async () => {
  collector.post("/v1/traces", async (req) => {
    if (process.env.OTLP_DEBUG)
      console.log("OTLP", req.headers["content-type"], JSON.stringify(req.body).slice(0, 300));
    const body = req.body as {
      resourceSpans?: {
        resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
        scopeSpans?: { spans?: { name: string; traceId: string }[] }[];
      }[];
    };
    for (const rs of body.resourceSpans ?? []) {
      const name = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue;
      if (name) received.serviceNames.push(name);
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? []) {
          received.spanNames.push(s.name);
          received.traceIds.push(s.traceId);
        }
    }
    return {};
  });
  await collector.listen({ host: "127.0.0.1", port: 0 });
  const port = (collector.server.address() as { port: number }).port;
  sys = await startSystem({
    childProcesses: ["catalog"],
    serviceEnv: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_SERVICE_NAME: "catalog",
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_LOG_LEVEL: process.env.OTLP_DEBUG ? "debug" : "",
    },
  });
});
afterAll(async () => {
  await sys?.close();
  await collector.close();
});

describe("OTLP export", () => {
  it("sends the service's spans, in the request's trace, named after the service", async () => {
    const api = sys.as(await sys.token("otlp"));
    const res = await api("POST", "/api/categories", { nameLocalized: { en_US: "exported" } });
    expect(res.status).toBe(201);
    const traceId = res.headers.get("traceresponse")!.split("-")[1]!;
    await eventually(
      async () =>
        received.traceIds.some((t) => t === traceId || Buffer.from(t, "base64").toString("hex") === traceId),
      20_000,
    );
    expect(received.serviceNames).toContain("catalog");
    expect(received.spanNames).toContain("fop.catalog.v1.CatalogService/CreateCategory");
    // The create's one statement (its row and outbox row: WITH ... INSERT, a prepared statement
    // named after its operation), a span of its own.
    expect(received.spanNames.some((n) => /^pg\.query:(INSERT|WITH)[_ ]/.test(n))).toBe(true);
  });
});
