/** The gateway's cross-cutting behaviour: OpenAPI/docs, traceresponse, rate limits, readiness, metrics. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type System, startSystem } from "../../support/system.ts";

const TRACE_RESPONSE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe("gateway", () => {
  let sys: System;
  let api: ReturnType<System["as"]>;
  beforeAll(async () => {
    sys = await startSystem();
    api = sys.as(await sys.token("gw"));
  });
  afterAll(() => sys?.close());

  it("serves an OpenAPI document generated from the routes, with lifecycle and permissions", async () => {
    const res = await sys.api("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("VERSIONLESS");
    const search = doc.paths["/api/categories/search"].post;
    expect(search).toMatchObject({
      "x-lifecycle": "beta",
      "x-badges": [{ label: "BETA" }],
      "x-fft-permissions": ["ADMIN_MODULES_READ"],
    });
    expect(doc.paths["/api/categories/{categoryId}"].put).toMatchObject({
      "x-lifecycle": "GA",
      "x-fft-permissions": ["CATEGORY_WRITE"],
    });
    const body = doc.paths["/api/categories/{categoryId}"].put.requestBody.content["application/json"].schema;
    expect(body).toEqual({ $ref: "#/components/schemas/CategoryForUpdate" });
    expect(doc.components.schemas.CategoryForUpdate.required).toEqual(
      expect.arrayContaining(["nameLocalized", "version"]),
    );
    expect(doc.paths["/api/facilities"].get["x-lifecycle"]).toBe("GA");
    for (const [p, ops] of Object.entries<Record<string, { "x-lifecycle"?: string }>>(doc.paths)) {
      for (const [m, op] of Object.entries(ops))
        expect(op["x-lifecycle"], `${m} ${p}`).toMatch(/^(alpha|beta|GA|deprecated)$/);
    }
    expect(doc.components.securitySchemes.BearerToken).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("serves the docs page from local assets", async () => {
    const page = await sys.api("GET", "/docs/");
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/swagger-ui/i);
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg)/);
  });

  it("puts a traceresponse on every response, successes and errors alike", async () => {
    const responses = [
      await api("POST", "/api/categories", { nameLocalized: {} }),
      await api("GET", "/api/categories"),
      await api("POST", "/api/categories", { nameLocalized: 1 }),
      await api("GET", "/api/categories/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f"),
      await api("GET", "/api/unknown"),
      await sys.api("GET", "/api/categories"),
      await sys.api("GET", "/healthz"),
    ];
    const traceIds = responses.map((r) => {
      const m = TRACE_RESPONSE.exec(r.headers.get("traceresponse") ?? "");
      expect(m, `${r.status} ${r.text}`).not.toBeNull();
      return m![1];
    });
    expect(new Set(traceIds).size).toBe(responses.length);
  });

  it("continues the caller's trace", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await api("GET", "/api/categories", undefined, {
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    });
    expect(res.headers.get("traceresponse")).toMatch(new RegExp(`^00-${traceId}-`));
  });

  it("exposes metrics", async () => {
    const res = await sys.api("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toMatch(
      /http_server_request_duration_seconds_count\{[^}]*http_request_method="GET",http_route="\/api\/categories"/,
    );
  });
});

describe("per-tenant rate limit", () => {
  let sys: System;
  beforeAll(async () => {
    sys = await startSystem({
      gatewayEnv: { RATE_LIMIT_ENABLED: "true", RATE_LIMIT_PER_SECOND: "2", RATE_LIMIT_BURST: "5" },
    });
  });
  afterAll(() => sys?.close());

  it("answers 429 with Retry-After past the burst, per tenant", async () => {
    const a = sys.as(await sys.token("busy"));
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<typeof a>> | undefined;
    for (let i = 0; i < 8; i++) {
      const res = await a("GET", "/api/categories");
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toContain(429);
    expect(limited!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(limited!.body).toEqual([
      expect.objectContaining({ code: "RATE_LIMITED", summary: expect.any(String) }),
    ]);
    // Another tenant is not affected.
    const b = sys.as(await sys.token("calm"));
    expect((await b("GET", "/api/categories")).status).toBe(200);
    // Public endpoints are not limited.
    expect((await sys.api("GET", "/healthz")).status).toBe(200);
  });
});

describe("readiness", () => {
  it("is ready only while every service answers", async () => {
    const sys = await startSystem();
    try {
      expect((await sys.api("GET", "/readyz")).body).toEqual({
        status: "ready",
        services: {
          catalog: true,
          audit: true,
          picking: true,
          loadunits: true,
          carriers: true,
          returns: true,
          notifications: true,
        },
      });
      await sys.stopService("catalog");
      const res = await sys.api("GET", "/readyz");
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        status: "not ready",
        services: {
          catalog: false,
          audit: true,
          picking: true,
          loadunits: true,
          carriers: true,
          returns: true,
          notifications: true,
        },
      });
      expect((await sys.api("GET", "/healthz")).status).toBe(200);
      // Requests that need the stopped service fail cleanly with 503, not a hang or a 500.
      const down = await sys.as(await sys.token("x"))("GET", "/api/categories");
      expect(down.status).toBe(503);
      expect(down.body[0]).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    } finally {
      await sys.close();
    }
  });
});
