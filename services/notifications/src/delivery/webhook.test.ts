import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { hostResolver, parseHosts } from "./resolve.ts";
import { guardedLookup, type WebhookAttempt, webhookSender } from "./webhook.ts";

/** The names these tests use, resolved without DNS (.invalid never resolves). */
const names = hostResolver(parseHosts("localhost=127.0.0.1,localhost=::1"), async (host) => {
  throw new Error(`no DNS in this test (${host})`);
});

interface Seen {
  method: string | undefined;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const servers: http.Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** A receiver on 127.0.0.1 answering with `answer` (which may also never answer). */
async function receiver(
  answer: (res: http.ServerResponse) => void = (res) => {
    res.writeHead(204).end();
  },
) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ method: req.method, headers: req.headers, body });
      answer(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { seen, port, url: `http://127.0.0.1:${port}/hook` };
}

const secret = `whsec_${randomBytes(24).toString("base64")}`;
const body = JSON.stringify({
  event: "PICK_JOB_CREATED",
  eventId: "evt-1",
  created: "2026-01-01T00:00:00Z",
  payload: { id: "ü" },
});
const attempt = (url: string, over: Partial<WebhookAttempt> = {}): WebhookAttempt => ({
  url,
  messageId: "evt-1",
  body,
  secret,
  headers: [
    { key: "X-Api-Key", value: "k-1" },
    { key: "X-Tenant", value: "t-1" },
  ],
  ...over,
});

describe("webhookSender", () => {
  it("posts the signed body with the subscription's headers", async () => {
    const r = await receiver();
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 2000, userAgent: "t" });
    const before = Math.floor(Date.now() / 1000);
    expect(await send(attempt(r.url))).toEqual({ status: 204 });
    expect(r.seen).toHaveLength(1);
    const [req] = r.seen as [Seen];
    expect(req.method).toBe("POST");
    expect(req.body).toBe(body);
    expect(req.headers).toMatchObject({
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
      "user-agent": "t",
      "webhook-id": "evt-1",
      "x-api-key": "k-1",
      "x-tenant": "t-1",
    });
    const ts = Number(req.headers["webhook-timestamp"]);
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(req.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toEqual(
      JSON.parse(body),
    );
    // Another secret does not verify.
    expect(() =>
      new Webhook(`whsec_${randomBytes(24).toString("base64")}`).verify(
        req.body,
        req.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it("a non-2xx answer is a failed attempt with the status", async () => {
    const r = await receiver((res) => {
      res.writeHead(500).end("oops");
    });
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 2000, userAgent: "t" });
    const out = await send(attempt(r.url));
    expect(out.status).toBe(500);
    expect(out.error).toEqual(expect.any(String));
    expect(out.error).toContain("500");
  });

  it("a redirect is a failed attempt (not followed)", async () => {
    const r = await receiver((res) => {
      res.writeHead(302, { location: "http://127.0.0.1:1/" }).end();
    });
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 2000, userAgent: "t" });
    const out = await send(attempt(r.url));
    expect(out).toMatchObject({ status: 302, error: expect.any(String) });
    expect(r.seen).toHaveLength(1);
  });

  it("a receiver that never answers fails within the timeout", async () => {
    const r = await receiver(() => {});
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 300, userAgent: "t" });
    const t0 = Date.now();
    const out = await send(attempt(r.url));
    const took = Date.now() - t0;
    expect(out.status).toBeUndefined();
    expect(out.error).toMatch(/300 ms/);
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(1500);
  });

  it("a receiver that trickles its answer is bounded by the timeout too", async () => {
    const timers: NodeJS.Timeout[] = [];
    const r = await receiver((res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      timers.push(setInterval(() => !res.destroyed && res.write("."), 50));
    });
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 300, userAgent: "t" });
    const t0 = Date.now();
    const out = await send(attempt(r.url));
    for (const t of timers) clearInterval(t);
    expect(out.error).toEqual(expect.any(String));
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it("refuses a literal address the guard does not allow, without connecting", async () => {
    const r = await receiver();
    const send = webhookSender({ resolve: names, allowed: () => false, timeoutMs: 2000, userAgent: "t" });
    const out = await send(attempt(r.url));
    expect(out).toEqual({ error: "refused address 127.0.0.1" });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.seen).toHaveLength(0);
  });

  it("refuses a name that resolves to an address the guard does not allow, without a request", async () => {
    const r = await receiver();
    const send = webhookSender({
      resolve: names,
      allowed: (a) => a !== "127.0.0.1" && a !== "::1",
      timeoutMs: 2000,
      userAgent: "t",
    });
    const out = await send(attempt(`http://localhost:${r.port}/hook`));
    expect(out.status).toBeUndefined();
    expect(out.error).toMatch(/refused address/);
    expect(r.seen).toHaveLength(0);
  });

  it("reaches a name the guard allows", async () => {
    const r = await receiver();
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 2000, userAgent: "t" });
    const out = await send(attempt(`http://localhost:${r.port}/hook`));
    // localhost may resolve to ::1 first where only 127.0.0.1 listens; either it is delivered or refused by the OS.
    if (out.error === undefined) expect(r.seen).toHaveLength(1);
    else expect(out.error).not.toMatch(/refused address/);
  });

  it("an invalid URL is a failed attempt", async () => {
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 2000, userAgent: "t" });
    expect(await send(attempt("not a url"))).toEqual({ error: "invalid callback URL" });
  });

  it("a connection refused is a failed attempt", async () => {
    const r = await receiver();
    const { port } = r;
    const s = servers.pop() as http.Server;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    const send = webhookSender({ resolve: names, allowed: () => true, timeoutMs: 2000, userAgent: "t" });
    const out = await send(attempt(`http://127.0.0.1:${port}/hook`));
    expect(out.status).toBeUndefined();
    expect(out.error).toMatch(/ECONNREFUSED/);
  });
});

describe("guardedLookup", () => {
  const look = (allowed: (a: string) => boolean, host: string, options: object) =>
    new Promise<{ err: (Error & { code?: string }) | null; rest: unknown[] }>((resolve) => {
      (
        guardedLookup(allowed, names) as unknown as (
          h: string,
          o: object,
          cb: (...a: unknown[]) => void,
        ) => void
      )(host, options, (err, ...rest) => resolve({ err: err as (Error & { code?: string }) | null, rest }));
    });

  it("refuses localhost when neither 127.0.0.1 nor ::1 is allowed", async () => {
    const notLoopback = (a: string) => a !== "127.0.0.1" && a !== "::1";
    for (const options of [{}, { all: true }, { family: 4 }]) {
      const { err } = await look(notLoopback, "localhost", options);
      expect(err?.code).toBe("EREFUSEDADDRESS");
      expect(err?.message).toMatch(/refused address .* for localhost/);
    }
  });

  it("answers the addresses when allowed, in the form asked for", async () => {
    const one = await look(() => true, "localhost", { family: 4 });
    expect(one.err).toBeNull();
    expect(one.rest).toEqual(["127.0.0.1", 4]);
    const all = await look(() => true, "localhost", { all: true, family: 4 });
    expect(all.err).toBeNull();
    expect(all.rest[0]).toEqual([{ address: "127.0.0.1", family: 4 }]);
  });

  it("passes resolution errors on", async () => {
    const { err } = await look(() => true, "no-such-host.invalid", {});
    expect(err).toBeInstanceOf(Error);
    expect(err?.code).not.toBe("EREFUSEDADDRESS");
  });
});
