/**
 * Issue 8, the findings that need a system set up for them: absolute-form request targets (with the
 * rate limit on), a stalled service and deadlines, CORS, and the admin port's dead letters.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { message, rawRequest } from "../../support/raw-http.ts";
import { type ApiResponse, eventually, type System, startSystem } from "../../support/system.ts";

const ORIGIN = "https://app.example.com";

describe("3. absolute-form request targets", () => {
  let sys: System;
  let token: string;
  let host: string;
  beforeAll(async () => {
    sys = await startSystem({
      gatewayEnv: {
        RATE_LIMIT_ENABLED: "true",
        RATE_LIMIT_PER_SECOND: "1",
        RATE_LIMIT_BURST: "3",
        CORS_ALLOWED_ORIGINS: `${ORIGIN}, https://other.example.com/`,
      },
      serviceEnv: { ADMIN_TOKEN: "admin-s3cret" },
    });
    token = await sys.token("edge", { roles: ["PICKER"] });
    host = new URL(sys.baseUrl).host;
  });
  afterAll(() => sys?.close());

  const get = (target: string, headers: Record<string, string> = {}) =>
    rawRequest(sys.baseUrl, message("GET", target, { Host: host, ...headers }));

  it("naming another host: 400 without reaching any route, token or not", async () => {
    for (const target of ["http://x/api/categories", "https://evil.example/api/categories", "http://x/"]) {
      const res = await get(target);
      expect(res.status, res.body).toBe(400);
      expect(res.json[0].code).toBe("INVALID_REQUEST_TARGET");
    }
    const withToken = await get("http://x/api/categories", { Authorization: `Bearer ${token}` });
    expect(withToken.json[0].code).toBe("INVALID_REQUEST_TARGET");
  });

  it("naming us: exactly as the path - authentication, permissions and the rate limit apply", async () => {
    const noToken = await get(`http://${host}/api/categories`);
    expect(noToken.status).toBe(401);
    expect(noToken.json[0].code).toBe("MISSING_TOKEN");
    const forbidden = await get(`http://${host}/api/audits?entityRef=x`, {
      Authorization: `Bearer ${token}`,
    });
    expect(forbidden.status).toBe(403);
    // The burst is 3: the 4th request within a second is limited, absolute form or not.
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 4; i++) {
      const res = await get(`http://${host.toUpperCase()}/api/categories?size=1`, {
        Authorization: `Bearer ${token}`,
      });
      statuses.push(res.status);
      retryAfter ??= res.headers["retry-after"];
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it("other target forms: 400", async () => {
    for (const target of ["*", "api/categories", "//x/api/categories"]) {
      const res = await get(target);
      expect(res.status, `${target}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.status, target).toBeLessThan(500);
    }
  });

  describe("17. CORS from CORS_ALLOWED_ORIGINS", () => {
    it("a preflight from an allowed origin is answered without a token", async () => {
      const pre = await fetch(`${sys.baseUrl}/api/pickjobs/search`, {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-method": "POST" },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
      expect(pre.headers.get("access-control-allow-headers")).toMatch(/authorization/i);
      const other = await fetch(`${sys.baseUrl}/api/pickjobs/search`, {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
    });
    it("responses to an allowed origin carry it and expose our headers; others get none", async () => {
      await new Promise((r) => setTimeout(r, 3000)); // refill the small rate limit of this system
      const res = await fetch(`${sys.baseUrl}/api/categories`, {
        headers: { origin: "https://other.example.com", authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("https://other.example.com");
      expect(res.headers.get("access-control-expose-headers")).toMatch(/Location/);
      expect(res.headers.get("vary")).toMatch(/Origin/);
      const evil = await fetch(`${sys.baseUrl}/healthz`, { headers: { origin: "https://evil.example" } });
      expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    });
  });

  describe("18. the admin port's dead letters", () => {
    it("need ADMIN_TOKEN when it is set, even from this host; probes and metrics stay open", async () => {
      const admin = sys.services.audit.adminUrl;
      const anonymous = await fetch(`${admin}/dead-letters`);
      expect(anonymous.status).toBe(403);
      expect(((await anonymous.json()) as { code: string }[])[0]!.code).toBe("ADMIN_ONLY");
      const wrong = await fetch(`${admin}/dead-letters`, { headers: { authorization: "Bearer nope" } });
      expect(wrong.status).toBe(403);
      const ok = await fetch(`${admin}/dead-letters`, { headers: { authorization: "Bearer admin-s3cret" } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ deadLetters: [] });
      expect((await fetch(`${admin}/readyz`)).status).toBe(200);
      expect((await fetch(`${admin}/metrics`)).status).toBe(200);
    });
  });
});

describe("13. deadlines: a change is never applied after its caller was told it failed", () => {
  let sys: System;
  let api: ReturnType<System["as"]>;
  beforeAll(async () => {
    sys = await startSystem({ childProcesses: ["catalog"], gatewayEnv: { RPC_TIMEOUT_MS: "1500" } });
    api = sys.as(await sys.token("late"));
  });
  afterAll(() => sys?.close());

  it("a stalled service: 504 OUTCOME_UNKNOWN (writes) / TIMEOUT (reads); once it resumes it drops the late write", async () => {
    const before = await api("POST", "/api/categories", {
      tenantCategoryId: "EARLY",
      nameLocalized: { en_US: "e" },
    });
    expect(before.status).toBe(201);

    sys.signalService("catalog", "SIGSTOP");
    let write: ApiResponse;
    let read: ApiResponse;
    try {
      const started = Date.now();
      write = await api("POST", "/api/categories", {
        tenantCategoryId: "LATE",
        nameLocalized: { en_US: "l" },
      });
      expect(Date.now() - started).toBeLessThan(5000);
      read = await api("GET", `/api/categories/${before.body.id}`);
    } finally {
      sys.signalService("catalog", "SIGCONT");
    }
    expect(write.status).toBe(504);
    expect(write.body[0].code).toBe("OUTCOME_UNKNOWN");
    expect(read.status).toBe(504);
    expect(read.body[0].code).toBe("TIMEOUT");
    for (const res of [write, read]) expect(JSON.stringify(res.body)).not.toMatch(/operation timed out/i);

    // The resumed service reads the stalled request only now, past its deadline: it must not apply it.
    await eventually(async () => (await api("GET", `/api/categories/${before.body.id}`)).status === 200);
    await new Promise((r) => setTimeout(r, 500));
    expect((await api("GET", "/api/categories/urn:fft:category:tenantCategoryId:LATE")).status).toBe(404);
    // So the client's retry is a plain create, not a 409 for a write it was told failed.
    const retry = await api("POST", "/api/categories", {
      tenantCategoryId: "LATE",
      nameLocalized: { en_US: "l" },
    });
    expect(retry.status).toBe(201);
  });

  it("a service stuck inside its transaction (a lock wait) past the deadline rolls back instead of committing late", async () => {
    const blocker = new pg.Client({ connectionString: sys.db.url });
    await blocker.connect();
    let write: ApiResponse;
    try {
      await blocker.query("begin");
      await blocker.query("lock table catalog.category in share row exclusive mode");
      const pending = api("POST", "/api/categories", {
        tenantCategoryId: "STUCK",
        nameLocalized: { en_US: "s" },
      });
      write = await pending;
      // Keep the service waiting past the gateway's deadline, then let it go on.
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      await blocker.query("commit");
      await blocker.end();
    }
    expect(write.status).toBe(504);
    expect(write.body[0].code).toBe("OUTCOME_UNKNOWN");
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api("GET", "/api/categories/urn:fft:category:tenantCategoryId:STUCK")).status).toBe(404);
    const retry = await api("POST", "/api/categories", {
      tenantCategoryId: "STUCK",
      nameLocalized: { en_US: "s" },
    });
    expect(retry.status).toBe(201);
  });

  it("a service that is down: 503 with Retry-After, in our words", async () => {
    await sys.stopService("catalog");
    try {
      const res = await api("POST", "/api/categories", { nameLocalized: { en_US: "x" } });
      expect(res.status).toBe(503);
      expect(res.body[0].code).toBe("SERVICE_UNAVAILABLE");
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED/);
    } finally {
      await sys.restartService("catalog");
    }
  });
});
