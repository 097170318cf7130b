import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Http1Pool, parseResponse, requestFormatter } from "./http1.ts";

describe("the open-loop generator's HTTP/1.1 client", () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  const sockets = new Set<unknown>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      sockets.add(req.socket);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        if (req.url === "/chunked") {
          // No Content-Length: node:http answers chunked; several writes make several chunks.
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"a":');
          setTimeout(() => res.end('"é"}'), 5);
        } else if (req.url === "/close") {
          res.writeHead(503, { connection: "close", "content-length": "2" });
          res.end("no");
        } else if (req.url === "/empty") {
          res.writeHead(204);
          res.end();
        } else {
          const body = JSON.stringify({ echo: req.url, got: Buffer.concat(chunks).toString() });
          res.writeHead(201, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          });
          res.end(body);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("sends the fixed headers and the body, and reads status and body", async () => {
    const pool = new Http1Pool(baseUrl);
    const format = requestFormatter(baseUrl, { authorization: "Bearer t" });
    const res = await pool.request(format("POST", "/things?x=1", '{"name":"ü"}'), {
      wantBody: true,
      timeoutMs: 5000,
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body.toString())).toEqual({ echo: "/things?x=1", got: '{"name":"ü"}' });
    const last = seen.at(-1)!;
    expect(last.method).toBe("POST");
    expect(last.headers.authorization).toBe("Bearer t");
    expect(last.headers["content-type"]).toBe("application/json");
    expect(last.headers["content-length"]).toBe(String(Buffer.byteLength('{"name":"ü"}')));
    pool.close();
  });

  it("keeps connections alive: sequential requests share one socket", async () => {
    const pool = new Http1Pool(baseUrl);
    const format = requestFormatter(baseUrl, {});
    sockets.clear();
    for (let i = 0; i < 5; i++) {
      const res = await pool.request(format("GET", `/n/${i}`), { wantBody: false, timeoutMs: 5000 });
      expect(res.status).toBe(201);
      expect(res.body.length).toBe(0);
    }
    expect(sockets.size).toBe(1);
    // Concurrent requests each get a connection of their own.
    sockets.clear();
    const all = await Promise.all(
      [0, 1, 2].map((i) => pool.request(format("GET", `/c/${i}`), { wantBody: true, timeoutMs: 5000 })),
    );
    expect(all.map((r) => JSON.parse(r.body.toString()).echo).sort()).toEqual(["/c/0", "/c/1", "/c/2"]);
    expect(sockets.size).toBe(3);
    pool.close();
  });

  it("reads chunked bodies, 204s, and a server's Connection: close", async () => {
    const pool = new Http1Pool(baseUrl);
    const format = requestFormatter(baseUrl, {});
    const chunked = await pool.request(format("GET", "/chunked"), { wantBody: true, timeoutMs: 5000 });
    expect(chunked.status).toBe(200);
    expect(JSON.parse(chunked.body.toString())).toEqual({ a: "é" });
    const empty = await pool.request(format("DELETE", "/empty"), { wantBody: true, timeoutMs: 5000 });
    expect(empty.status).toBe(204);
    sockets.clear();
    const closed = await pool.request(format("GET", "/close"), { wantBody: true, timeoutMs: 5000 });
    expect([closed.status, closed.body.toString()]).toEqual([503, "no"]);
    // The next request opens a new connection instead of writing to the closed one.
    const after = await pool.request(format("GET", "/after"), { wantBody: false, timeoutMs: 5000 });
    expect(after.status).toBe(201);
    expect(sockets.size).toBe(2);
    pool.close();
  });

  it("rejects on a connection error and on a timeout", async () => {
    const refused = new Http1Pool("http://127.0.0.1:1");
    await expect(
      refused.request(requestFormatter("http://127.0.0.1:1", {})("GET", "/"), {
        wantBody: false,
        timeoutMs: 5000,
      }),
    ).rejects.toThrow();
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const pool = new Http1Pool(url);
    await expect(
      pool.request(requestFormatter(url, {})("GET", "/"), { wantBody: false, timeoutMs: 50 }),
    ).rejects.toThrow("timeout");
    pool.close();
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it("parses a response only once it is complete, byte by byte", () => {
    const whole = Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhelloHTTP/1.1 ...");
    const end = whole.indexOf("HTTP/1.1 ...");
    for (let n = 0; n < end; n++) expect(parseResponse(whole.subarray(0, n))).toBeUndefined();
    const r = parseResponse(whole)!;
    expect([r.status, r.body.toString(), r.consumed, r.close]).toEqual([200, "hello", end, false]);
    expect(() => parseResponse(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"))).toThrow("not an HTTP/1.1 response");
    expect(() => parseResponse(Buffer.from("HTTP/1.1 200 OK\r\n\r\n"))).toThrow("neither Content-Length");
  });
});
