/** A local webhook receiver for tests (outside the system under test): records every request and answers as told per path. */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url: (path: string) => string;
  received: ReceivedWebhook[];
  on: (path: string) => ReceivedWebhook[];
  close(): Promise<void>;
}

/** `answer(path, nth)` gives the status for the nth (1-based) request to `path`; "hang" never answers. */
export async function startWebhookReceiver(
  answer: (path: string, nth: number) => number | "hang" = () => 200,
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      });
      const nth = (counts.get(path) ?? 0) + 1;
      counts.set(path, nth);
      const status = answer(path, nth);
      if (status === "hang") return;
      res.writeHead(status, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
