import { describe, expect, it } from "vitest";
import { createMetrics } from "../metrics.ts";
import { buildAdminServer, isLoopback } from "./server.ts";

const rt = { ready: async () => true, metrics: createMetrics("admin-test") };
const letters = async () => [{ eventId: "e1", payload: { secret: "personal data" } }];

describe("admin server", () => {
  it("serves probes and metrics to anyone", async () => {
    const app = buildAdminServer(rt, letters);
    for (const url of ["/healthz", "/readyz", "/metrics"]) {
      expect((await app.inject({ url, remoteAddress: "10.1.2.3" })).statusCode).toBe(200);
    }
  });

  it("serves dead letters to loopback callers only, by default", async () => {
    const app = buildAdminServer(rt, letters);
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
    const app = buildAdminServer(rt, letters, { adminToken: "s3cret" });
    const ask = (authorization: string | undefined, remoteAddress: string) =>
      app.inject({ url: "/dead-letters", remoteAddress, headers: authorization ? { authorization } : {} });
    expect((await ask("Bearer s3cret", "10.1.2.3")).statusCode).toBe(200);
    expect((await ask("Bearer s3cre", "10.1.2.3")).statusCode).toBe(403);
    expect((await ask(undefined, "127.0.0.1")).statusCode).toBe(403);
  });

  it("isLoopback", () => {
    expect(["127.0.0.1", "127.8.9.1", "::1", "::ffff:127.0.0.1"].every(isLoopback)).toBe(true);
    expect(["10.0.0.1", "::ffff:10.0.0.1", "", undefined, "1127.0.0.1"].some(isLoopback)).toBe(false);
  });
});
