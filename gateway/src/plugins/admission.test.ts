import { createMetrics } from "@fop/kit/metrics";
import { fastify } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { installAdmission } from "./admission.ts";
import { installErrorHandling } from "./errors.ts";

/** A gateway-shaped app on a loopback port whose /api/slow answers only when released. */
async function app(maxInFlight: number) {
  const metrics = createMetrics("gateway");
  const server = fastify({ forceCloseConnections: true });
  installErrorHandling(server);
  installAdmission(server, { maxInFlight }, { metrics });
  const waiting: (() => void)[] = [];
  const hold = () => new Promise<void>((resolve) => waiting.push(resolve));
  server.get("/api/slow", async () => {
    await hold();
    return { ok: true };
  });
  server.get("/api/fast", async () => ({ ok: true }));
  server.get("/api/stream", { config: { stream: true } }, async () => {
    await hold();
    return { ok: true };
  });
  server.get("/healthz", async () => ({ status: "ok" }));
  const url = await server.listen({ port: 0, host: "127.0.0.1" });
  const shed = async () =>
    (await metrics.registry.getSingleMetric("fop_gateway_shed_requests_total")!.get()).values[0]?.value ?? 0;
  /** Until `n` handlers are holding. */
  const holding = async (n: number) => {
    while (waiting.length < n) await new Promise((r) => setTimeout(r, 5));
  };
  const release = () => {
    for (const r of waiting.splice(0)) r();
  };
  return { server, url, shed, holding, release };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("load shedding (MAX_IN_FLIGHT)", () => {
  it("answers the request beyond the bound 503 SERVICE_OVERLOADED with Retry-After at once, and serves again when one ends", async () => {
    const a = await app(2);
    close = async () => {
      a.release();
      await a.server.close();
    };
    const held = [fetch(`${a.url}/api/slow`), fetch(`${a.url}/api/slow`)];
    await a.holding(2);

    const started = Date.now();
    const refused = await fetch(`${a.url}/api/fast`);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    const body = (await refused.json()) as { code: string; summary: string }[];
    expect(body[0]!.code).toBe("SERVICE_OVERLOADED");
    expect(await a.shed()).toBe(1);

    // Probes and long-lived streams are not API work the bound counts.
    expect((await fetch(`${a.url}/healthz`)).status).toBe(200);
    const stream = fetch(`${a.url}/api/stream`);
    await a.holding(3);

    a.release();
    for (const r of await Promise.all([...held, stream])) expect(r.status).toBe(200);
    expect((await fetch(`${a.url}/api/fast`)).status).toBe(200);
    expect(await a.shed()).toBe(1);
  });

  it("a request its client abandoned gives its place back", async () => {
    const a = await app(1);
    close = async () => {
      a.release();
      await a.server.close();
    };
    const abort = new AbortController();
    const gone = fetch(`${a.url}/api/slow`, { signal: abort.signal }).catch((e: Error) => e.name);
    await a.holding(1);
    expect((await fetch(`${a.url}/api/fast`)).status).toBe(503);
    abort.abort();
    expect(await gone).toBe("AbortError");
    // The server sees the connection close a moment later.
    let status = 503;
    for (let i = 0; i < 100 && status === 503; i++) {
      status = (await fetch(`${a.url}/api/fast`)).status;
      if (status === 503) await new Promise((r) => setTimeout(r, 10));
    }
    expect(status).toBe(200);
  });

  it("0: no bound", async () => {
    const a = await app(0);
    close = async () => {
      a.release();
      await a.server.close();
    };
    const held = Array.from({ length: 20 }, () => fetch(`${a.url}/api/slow`));
    await a.holding(20);
    expect((await fetch(`${a.url}/api/fast`)).status).toBe(200);
    a.release();
    await Promise.all(held);
    expect(await a.shed()).toBe(0);
  });
});
