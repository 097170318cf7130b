/**
 * The gateway's drain (close(), what SIGTERM runs): the running request is answered and a request
 * that still arrives on an open connection is answered too (not refused with a 503), each closing
 * its connection, so the close does not wait for idle keep-alive connections; /readyz says 503.
 */
import net from "node:net";
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { expect, it } from "vitest";
import { buildGateway } from "./app.ts";

/** A connection that sends `head` now and `rest` when asked; resolves with what it got once closed. */
function connection(port: number, head: string) {
  const socket = net.connect(port, "127.0.0.1", () => socket.write(head));
  let text = "";
  socket.on("data", (d) => {
    text += d.toString("utf8");
  });
  const closed = new Promise<{ status: number; close: boolean; body: string }>((resolve, reject) => {
    socket.on("error", reject);
    socket.on("close", () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]),
        close: /^connection: close/im.test(text),
        body: text.slice(text.indexOf("\r\n\r\n") + 4),
      }),
    );
  });
  return { send: (rest: string) => socket.write(rest), closed };
}

it("answers running and arriving requests, closing their connections; /readyz is 503 while draining", async () => {
  let checks = 0;
  const app = await buildGateway({
    logger: createLogger({ service: "drain-test", level: "silent" }),
    metrics: createMetrics("drain-test"),
    clients: {} as never,
    verify: async () => {
      throw new Error("no tokens here");
    },
    resolveUrn: async () => "",
    // A slow dependency check: the first /readyz is still running when the drain begins.
    checkServices: async () => {
      checks++;
      await new Promise((r) => setTimeout(r, 400));
      return { catalog: true };
    },
    publicUrl: "",
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as net.AddressInfo;
  const running = connection(port, "GET /readyz HTTP/1.1\r\nHost: gw\r\n\r\n");
  // Requests under way on their connections (headers begun) when the drain begins.
  const readyz = connection(port, "GET /readyz HTTP/1.1\r\nHost: gw\r\n");
  const healthz = connection(port, "GET /healthz HTTP/1.1\r\nHost: gw\r\n");
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  const closed = app.close();
  await new Promise((r) => setTimeout(r, 20));
  readyz.send("\r\n");
  healthz.send("\r\n");
  expect(await running.closed).toEqual({
    status: 200,
    close: true,
    body: '{"status":"ready","services":{"catalog":true}}',
  });
  expect(await readyz.closed).toEqual({ status: 503, close: true, body: '{"status":"draining"}' });
  expect(await healthz.closed).toEqual({ status: 200, close: true, body: '{"status":"ok"}' });
  await closed;
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(checks).toBe(1);
});

it("beginDrain (SIGTERM, before close): still serves new connections, each response closing its connection; /readyz 503", async () => {
  const app = await buildGateway({
    logger: createLogger({ service: "drain-test", level: "silent" }),
    metrics: createMetrics("drain-test-begin"),
    clients: {} as never,
    verify: async () => {
      throw new Error("no tokens here");
    },
    resolveUrn: async () => "",
    checkServices: async () => ({ catalog: true }),
    publicUrl: "",
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as net.AddressInfo;
  try {
    const before = connection(port, "GET /healthz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n");
    expect(await before.closed).toMatchObject({ status: 200, close: true });
    const kept = connection(port, "GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n"); // keep-alive
    await new Promise((r) => setTimeout(r, 50));
    app.beginDrain();
    kept.send("GET /healthz HTTP/1.1\r\nHost: gw\r\n\r\n");
    const fresh = connection(port, "GET /readyz HTTP/1.1\r\nHost: gw\r\n\r\n");
    expect(await fresh.closed).toEqual({ status: 503, close: true, body: '{"status":"draining"}' });
    // The keep-alive connection's second answer closes it (the first, before the drain, did not).
    const got = await kept.closed;
    expect(got.status).toBe(200);
    expect(got.body).toMatch(/\{"status":"ok"\}$/);
    expect(got.close).toBe(true);
  } finally {
    await app.close();
  }
});
