/** The live stream's relay: SSE framing, heartbeats, and that a closing gateway ends open streams. */
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { afterEach, expect, it } from "vitest";
import { buildGateway } from "../../app.ts";

const notification = { id: "n-1", type: "CLIENT", event: "PICK_JOB_CREATED" };
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A gateway whose notifications service streams `messages` and then stays open until aborted. */
async function gatewayStreaming(messages: Uint8Array[]) {
  const live = {
    streamNotifications: (_req: unknown, opts: { signal: AbortSignal }) => ({
      async *[Symbol.asyncIterator]() {
        yield { documentJson: new Uint8Array() }; // the service's "subscribed"
        for (const m of messages) yield { documentJson: m };
        await new Promise((_, reject) =>
          opts.signal.addEventListener("abort", () => reject(new Error("aborted"))),
        );
      },
    }),
  };
  const app = await buildGateway({
    logger: createLogger({ service: "stream-test", level: "silent" }),
    metrics: createMetrics("stream-test"),
    clients: { notificationsLive: live } as never,
    verify: async () => ({
      tenant: "t",
      userId: "u",
      username: "u",
      roles: [],
      permissions: ["NOTIFICATION_READ"],
    }),
    resolveUrn: async () => "",
    checkServices: async () => ({}),
    publicUrl: "",
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as { port: number };
  close = () => app.close();
  return { app, url: `http://127.0.0.1:${port}/api/notifications/stream` };
}

async function readUntil(res: Response, done: (text: string) => boolean): Promise<string> {
  const reader = res.body!.getReader();
  let text = "";
  while (!done(text)) {
    const { value, done: end } = await reader.read();
    if (end) return `${text}<end>`;
    text += Buffer.from(value).toString("utf8");
  }
  reader.releaseLock();
  return text;
}

it("relays notifications as SSE events and heartbeats as comments", async () => {
  const { url } = await gatewayStreaming([new Uint8Array(), Buffer.from(JSON.stringify(notification))]);
  const res = await fetch(url, { headers: { authorization: "Bearer x" } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
  const text = await readUntil(res, (t) => t.includes("event: notification"));
  expect(text).toContain("retry: 3000\n: connected\n\n");
  expect(text).toContain(": heartbeat\n\n");
  expect(text).toContain(`id: n-1\nevent: notification\ndata: ${JSON.stringify(notification)}\n\n`);
  await res.body?.cancel();
});

it("a closing gateway ends open streams instead of waiting on them", async () => {
  const { app, url } = await gatewayStreaming([]);
  const res = await fetch(url, { headers: { authorization: "Bearer x" } });
  await readUntil(res, (t) => t.includes(": connected"));
  const started = Date.now();
  const rest = readUntil(res, () => false);
  await app.close();
  close = undefined;
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(await rest).toMatch(/<end>$/);
}, 10_000);
