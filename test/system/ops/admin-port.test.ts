/**
 * The services' admin port without ADMIN_TOKEN (issue 25, 14): dead letters and their replay are
 * refused to every caller, this host's included (a sidecar proxy makes every peer a loopback one),
 * unless loopback trust is switched on explicitly (`npm start` and the other system tests do).
 * Probes and metrics stay open. With ADMIN_TOKEN set: robustness/deadlines-cors-and-edges.test.ts, 18.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES, type System, startSystem } from "../../support/system.ts";

const SERVICES = SERVICE_NAMES;

describe("admin port without ADMIN_TOKEN and without loopback trust", () => {
  let sys: System;
  beforeAll(async () => {
    sys = await startSystem({ serviceEnv: { ADMIN_LOOPBACK_TRUST: "false" } });
  });
  afterAll(() => sys?.close());

  it.each(SERVICES)(
    "%s: dead letters and replay are 403 ADMIN_ONLY from this host; probes and metrics open",
    async (name) => {
      const admin = sys.services[name].adminUrl;
      const list = await fetch(`${admin}/dead-letters`);
      expect(list.status).toBe(403);
      const body = (await list.json()) as { code: string; description: string }[];
      expect(body[0]!.code).toBe("ADMIN_ONLY");
      expect(body[0]!.description).toContain("ADMIN_TOKEN");
      const replay = await fetch(`${admin}/dead-letters/replay`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(replay.status).toBe(403);
      const guessed = await fetch(`${admin}/dead-letters`, { headers: { authorization: "Bearer " } });
      expect(guessed.status).toBe(403);
      expect((await fetch(`${admin}/readyz`)).status).toBe(200);
      expect((await fetch(`${admin}/metrics`)).status).toBe(200);
    },
  );

  it("the public API is unaffected", async () => {
    const token = await sys.token("admin-port", { roles: ["ADMIN"] });
    const res = await sys.api("GET", "/api/categories", { token });
    expect(res.status, res.text).toBe(200);
  });
});
