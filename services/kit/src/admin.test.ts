import { describe, expect, it } from "vitest";
import { buildAdminServer, isLoopback } from "./admin.ts";
import type { ReplayReport } from "./events/consumer.ts";
import { createMetrics } from "./metrics.ts";
import { loadServiceConfig } from "./service.ts";
import { TEST_RPC_AUTH_KEY } from "./testing/rpc.ts";

const rt = { ready: async () => true, metrics: createMetrics("admin-test") };
const letters = async () => [{ eventId: "e1", payload: { secret: "personal data" } }];

describe("admin server", () => {
  it("serves probes and metrics to anyone", async () => {
    const app = buildAdminServer(rt, letters);
    for (const url of ["/healthz", "/readyz", "/metrics"]) {
      expect((await app.inject({ url, remoteAddress: "10.1.2.3" })).statusCode).toBe(200);
    }
  });

  it("without ADMIN_TOKEN refuses dead letters to every caller, loopback too, saying ADMIN_TOKEN must be set", async () => {
    for (const app of [
      buildAdminServer(rt, letters),
      buildAdminServer(rt, letters, { loopbackTrust: false }),
    ]) {
      for (const remoteAddress of ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.1.2.3", "::ffff:10.0.0.7"]) {
        const res = await app.inject({ url: "/dead-letters", remoteAddress });
        expect(res.statusCode, remoteAddress).toBe(403);
        expect(res.json()).toEqual([
          {
            summary: expect.any(String),
            description: expect.stringMatching(/ADMIN_TOKEN must be set/),
            code: "ADMIN_ONLY",
          },
        ]);
        expect(res.body).not.toContain("personal data");
      }
    }
  });

  it("with loopback trust (a developer's machine) and no ADMIN_TOKEN, serves dead letters to loopback callers only", async () => {
    const app = buildAdminServer(rt, letters, { loopbackTrust: true });
    for (const remoteAddress of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      const res = await app.inject({ url: "/dead-letters", remoteAddress });
      expect(res.statusCode).toBe(200);
      expect(res.json().deadLetters).toHaveLength(1);
    }
    for (const remoteAddress of ["10.1.2.3", "::ffff:10.0.0.7", "fe80::1"]) {
      const res = await app.inject({ url: "/dead-letters", remoteAddress });
      expect(res.statusCode).toBe(403);
      expect(res.json()[0].code).toBe("ADMIN_ONLY");
      expect(res.body).not.toContain("personal data");
    }
  });

  it("with ADMIN_TOKEN, serves dead letters to that bearer from anywhere and to nobody else", async () => {
    for (const loopbackTrust of [false, true]) {
      const app = buildAdminServer(rt, letters, { adminToken: "s3cret", loopbackTrust });
      const ask = (authorization: string | undefined, remoteAddress: string) =>
        app.inject({ url: "/dead-letters", remoteAddress, headers: authorization ? { authorization } : {} });
      expect((await ask("Bearer s3cret", "10.1.2.3")).statusCode).toBe(200);
      expect((await ask("Bearer s3cre", "10.1.2.3")).statusCode).toBe(403);
      expect((await ask(undefined, "127.0.0.1")).statusCode).toBe(403);
    }
  });

  /** Consumers that record what they were asked to replay. */
  function consumers(...names: string[]) {
    const asked: { consumer: string; ids: readonly string[] | undefined }[] = [];
    const report: ReplayReport = { replayed: 2, failed: [], notFound: [], remaining: 0 };
    return {
      asked,
      report,
      consumers: names.map((name) => ({
        name,
        replayDeadLetters: async (ids?: readonly string[]) => {
          asked.push({ consumer: name, ids });
          return report;
        },
      })),
    };
  }
  const replay = (app: ReturnType<typeof buildAdminServer>, payload: string, more: object = {}) =>
    app.inject({ method: "POST", url: "/dead-letters/replay", remoteAddress: "127.0.0.1", payload, ...more });

  it("replays a consumer's dead letters: all, or the ids named; the body is JSON whatever its content type", async () => {
    const c = consumers("a-one", "b-two");
    const app = buildAdminServer(rt, letters, { loopbackTrust: true, consumers: c.consumers });
    const all = await replay(app, JSON.stringify({ consumer: "b-two" }), {
      headers: { "content-type": "application/x-www-form-urlencoded" }, // what curl -d sends
    });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual(c.report);
    const some = await replay(app, JSON.stringify({ consumer: "a-one", ids: ["x", "y"] }), {
      headers: { "content-type": "application/json" },
    });
    expect(some.statusCode).toBe(200);
    expect(c.asked).toEqual([
      { consumer: "b-two", ids: undefined },
      { consumer: "a-one", ids: ["x", "y"] },
    ]);
  });

  it("refuses a malformed body (400) and an unknown consumer (404, naming the service's)", async () => {
    const c = consumers("a-one", "b-two");
    const app = buildAdminServer(rt, letters, { loopbackTrust: true, consumers: c.consumers });
    const malformed = [
      "",
      "{",
      "[]",
      '"a-one"',
      "{}",
      '{"consumer": ""}',
      '{"consumer": 7}',
      '{"consumer": "a-one", "ids": []}',
      '{"consumer": "a-one", "ids": "x"}',
      '{"consumer": "a-one", "ids": [1]}',
      '{"consumer": "a-one", "id": "x"}',
      JSON.stringify({ consumer: "a-one", ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) }),
    ];
    for (const body of malformed) {
      const res = await replay(app, body);
      expect(res.statusCode, body.slice(0, 60)).toBe(400);
      expect(res.json()[0].code).toBe("INVALID_REQUEST");
    }
    const unknown = await replay(app, '{"consumer": "c-three"}');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()[0]).toMatchObject({ code: "UNKNOWN_CONSUMER" });
    expect(unknown.json()[0].description).toMatch(/"c-three".*a-one, b-two/);
    const none = await replay(
      buildAdminServer(rt, letters, { loopbackTrust: true, consumers: [] }),
      '{"consumer": "a-one"}',
    );
    expect(none.statusCode).toBe(404);
    expect(none.json()[0].description).toMatch(/has none/);
    expect(c.asked).toEqual([]);
  });

  it("replays for nobody without ADMIN_TOKEN; for loopback callers with loopback trust; with ADMIN_TOKEN for that bearer only", async () => {
    const c = consumers("a-one");
    const body = '{"consumer": "a-one"}';
    const closed = buildAdminServer(rt, letters, { consumers: c.consumers });
    for (const remoteAddress of ["127.0.0.1", "::1", "10.1.2.3"]) {
      const res = await replay(closed, body, { remoteAddress });
      expect(res.statusCode).toBe(403);
      expect(res.json()[0]).toMatchObject({
        code: "ADMIN_ONLY",
        description: expect.stringMatching(/ADMIN_TOKEN must be set/),
      });
    }
    const trusting = buildAdminServer(rt, letters, { loopbackTrust: true, consumers: c.consumers });
    for (const remoteAddress of ["10.1.2.3", "::ffff:10.0.0.7"]) {
      const res = await replay(trusting, body, { remoteAddress });
      expect(res.statusCode).toBe(403);
      expect(res.json()[0].code).toBe("ADMIN_ONLY");
    }
    expect(c.asked).toEqual([]);
    expect((await replay(trusting, body, { remoteAddress: "::1" })).statusCode).toBe(200);
    c.asked.length = 0;
    const guarded = buildAdminServer(rt, letters, { adminToken: "s3cret", consumers: c.consumers });
    const ask = (authorization: string | undefined, remoteAddress: string) =>
      replay(guarded, body, { remoteAddress, headers: authorization ? { authorization } : {} });
    expect((await ask(undefined, "127.0.0.1")).statusCode).toBe(403);
    expect((await ask("Bearer s3cre", "10.1.2.3")).statusCode).toBe(403);
    expect(c.asked).toEqual([]);
    expect((await ask("Bearer s3cret", "10.1.2.3")).statusCode).toBe(200);
    expect(c.asked).toHaveLength(1);
  });

  it("isLoopback", () => {
    expect(["127.0.0.1", "127.8.9.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["10.0.0.1", "::ffff:10.0.0.1", "", undefined, "1127.0.0.1"].some(isLoopback)).toBe(false);
  });

  it("the service config trusts loopback only when ADMIN_LOOPBACK_TRUST says so, whatever NODE_ENV", () => {
    const env = { DATABASE_URL: "postgres://audit_svc@127.0.0.1:5432/fop", RPC_AUTH_KEY: TEST_RPC_AUTH_KEY };
    const load = (more: Record<string, string>) =>
      loadServiceConfig({ ports: { rpc: 0, admin: 0 }, config: {} }, { ...env, ...more });
    expect(load({}).ADMIN_LOOPBACK_TRUST).toBe(false);
    expect(load({ NODE_ENV: "development" }).ADMIN_LOOPBACK_TRUST).toBe(false);
    expect(load({ ADMIN_LOOPBACK_TRUST: "true" }).ADMIN_LOOPBACK_TRUST).toBe(true);
    expect(() => load({ ADMIN_LOOPBACK_TRUST: "maybe" })).toThrow(/ADMIN_LOOPBACK_TRUST/);
  });
});
