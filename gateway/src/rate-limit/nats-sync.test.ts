/**
 * The replicas' exchange over a real NATS: reports reach the other processes and not their sender;
 * without NATS it is down (fail open), says so once, and once again when NATS is back.
 */
import { randomBytes } from "node:crypto";
import { type EndpointsProxy, startEndpointsProxy } from "@fop/kit/dev/endpoints-proxy";
import { freePort } from "@fop/kit/dev/infra";
import { createLogger } from "@fop/kit/logger";
import type {} from "@fop/kit/testing/db";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  decodeReport,
  ENTRIES_PER_MESSAGE,
  encodeReport,
  type RateLimitSync,
  startRateLimitSync,
} from "./nats-sync.ts";
import type { ReportEntry } from "./token-buckets.ts";

const opened: RateLimitSync[] = [];
const proxies: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** A logger whose lines (parsed) land in `lines`. */
function captured() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger({
    service: "rate-limit-test",
    level: "info",
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

function start(url: string, subject: string, logger = captured().logger) {
  const received: { peer: string; report: ReportEntry[] }[] = [];
  const sync = startRateLimitSync({
    url,
    subject,
    logger,
    retryMs: 200,
    onReport: (peer, report) => received.push({ peer, report }),
  });
  opened.push(sync);
  return { sync, received };
}

async function until(check: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the exchange over NATS", () => {
  it("brings a replica's report to the others, not back to itself; a long one in several messages", async () => {
    const subject = `t${randomBytes(4).toString("hex")}.rate-limit`;
    const a = start(inject("natsUrl"), subject);
    const b = start(inject("natsUrl"), subject);
    const c = start(inject("natsUrl"), subject);
    await until(() => a.sync.up && b.sync.up && c.sync.up);
    a.sync.publish([["acme", 3, 5]]);
    await until(() => b.received.length === 1 && c.received.length === 1);
    expect(b.received[0]).toEqual({ peer: a.sync.id, report: [["acme", 3, 5]] });
    const long = Array.from({ length: ENTRIES_PER_MESSAGE + 1 }, (_, i): ReportEntry => [`t${i}`, 1, 1]);
    b.sync.publish(long);
    b.sync.publish([]); // alive
    await until(() => a.received.length === 3);
    expect(a.received.map((r) => r.report.length)).toEqual([ENTRIES_PER_MESSAGE, 1, 0]);
    expect(a.received.flatMap((r) => r.report)).toEqual(long);
    await new Promise((r) => setTimeout(r, 100));
    expect(a.received.every((r) => r.peer === b.sync.id)).toBe(true);
    expect(b.received.map((r) => r.peer)).toEqual([a.sync.id]);
  });

  it("is down without NATS (a closed port): says so once, publishes nothing, closes at once", async () => {
    const { logger, lines } = captured();
    const { sync } = start(`nats://127.0.0.1:${await freePort()}`, "unused", logger);
    await new Promise((r) => setTimeout(r, 700)); // a few attempts
    expect(sync.up).toBe(false);
    sync.publish([["acme", 1, 1]]);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^rate limit: NATS unreachable/)]);
    expect(lines[0]!.level).toBe(40); // warn
    const started = Date.now();
    await sync.close();
    expect(Date.now() - started).toBeLessThan(500);
  });

  it("goes down when the connection is cut and comes back with NATS: one line each", async () => {
    const nats = new URL(inject("natsUrl"));
    const port = await freePort();
    const cut = await cuttableProxy(port, nats.hostname, Number(nats.port));
    proxies.push(cut);
    const { logger, lines } = captured();
    const subject = `t${randomBytes(4).toString("hex")}.rate-limit`;
    const { sync, received } = start(`nats://127.0.0.1:${port}`, subject, logger);
    const peer = start(inject("natsUrl"), subject);
    await until(() => sync.up && peer.sync.up);
    expect(lines).toEqual([]);
    await cut.close();
    await until(() => !sync.up);
    await new Promise((r) => setTimeout(r, 1500)); // reconnect attempts meanwhile
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^rate limit: NATS unreachable/)]);
    await cut.open();
    await until(() => sync.up);
    expect(lines.map((l) => l.msg)).toEqual([
      expect.stringMatching(/^rate limit: NATS unreachable/),
      expect.stringMatching(/^rate limit: NATS reachable again/),
    ]);
    // Subscribed again: the peer's reports come in (published until the subscription is back).
    await until(() => {
      peer.sync.publish([["acme", 2, 2]]);
      return received.length > 0;
    });
    expect(received[0]).toEqual({ peer: peer.sync.id, report: [["acme", 2, 2]] });
  });
});

describe("the message", () => {
  it("round-trips a report and leaves out what is not one", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(decodeReport(enc(encodeReport("p1", [["acme", 3, 5]])))).toEqual({
      peer: "p1",
      report: [["acme", 3, 5]],
    });
    expect(decodeReport(enc("not json"))).toBeUndefined();
    expect(decodeReport(enc('{"t":[]}'))).toBeUndefined();
    expect(decodeReport(enc(encodeReport("p1", [])))).toEqual({ peer: "p1", report: [] });
    expect(decodeReport(enc('{"p":"p1","t":["a",1]}'))).toBeUndefined();
    const t = ["a", -1, 1, "b", 1.5, 2, 3, 1, 1, "c", "1", 1, "d", 0, 1];
    expect(decodeReport(enc(JSON.stringify({ p: "p1", t })))).toEqual({ peer: "p1", report: [["d", 0, 1]] });
  });
});

/**
 * The kit's endpoints proxy on `port` to host:target, as a link that can be cut (close: the port
 * refuses, every connection through it ends) and opened again on the same port.
 */
async function cuttableProxy(port: number, host: string, target: number) {
  let proxy: EndpointsProxy | undefined;
  const open = async () => {
    proxy = await startEndpointsProxy([`tcp://${host}:${target}`], { port });
  };
  const close = async () => {
    await proxy?.close();
    proxy = undefined;
  };
  await open();
  return { open, close };
}
