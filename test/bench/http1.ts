/**
 * A lean HTTP/1.1 client for the open-loop load generator (open-loop.ts): keep-alive connections,
 * one request at a time on each (no pipelining, as a browser or an SDK sends), requests written as
 * one preformatted buffer, answers parsed just enough to know the status and the body
 * (Content-Length or chunked). `node:http`'s client costs about as much CPU per request as the
 * gateway itself; on a 2-core machine that CPU is taken from the system under test, so the figure
 * would say more about the generator than about the system.
 */
import net from "node:net";

export interface Http1Response {
  status: number;
  /** The body, when the request asked for it (`wantBody`); else empty. */
  body: Buffer;
}

interface Pending {
  resolve(r: Http1Response): void;
  reject(err: Error): void;
  wantBody: boolean;
  timer: NodeJS.Timeout;
}

const CRLF2 = Buffer.from("\r\n\r\n");

/** Parses one response off the front of `buf`: its status, body and length, or undefined while incomplete. */
export function parseResponse(
  buf: Buffer,
): { status: number; body: Buffer; consumed: number; close: boolean } | undefined {
  const headEnd = buf.indexOf(CRLF2);
  if (headEnd < 0) return undefined;
  const head = buf.toString("latin1", 0, headEnd);
  const firstLine = head.slice(0, head.indexOf("\r\n") >>> 0);
  const status = Number(firstLine.split(" ", 2)[1]);
  if (!/^HTTP\/1\.[01] \d{3}/.test(firstLine) || !Number.isInteger(status)) {
    throw new Error(`not an HTTP/1.1 response: ${JSON.stringify(firstLine.slice(0, 80))}`);
  }
  let length: number | undefined;
  let chunked = false;
  let close = firstLine.startsWith("HTTP/1.0");
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === "content-length") length = Number(value);
    else if (name === "transfer-encoding") chunked = value.split(",").some((v) => v.trim() === "chunked");
    else if (name === "connection") close = value === "close";
  }
  const bodyStart = headEnd + 4;
  if (chunked) {
    const parts: Buffer[] = [];
    let at = bodyStart;
    for (;;) {
      const lineEnd = buf.indexOf("\r\n", at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(buf.toString("latin1", at, lineEnd).split(";")[0]!, 16);
      if (!Number.isInteger(size) || size < 0) throw new Error("bad chunk size");
      if (size === 0) {
        // Last chunk, then (no trailers from our gateway) the final CRLF.
        const end = buf.indexOf("\r\n\r\n", lineEnd);
        if (end < 0) return undefined;
        return { status, body: Buffer.concat(parts), consumed: end + 4, close };
      }
      if (buf.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  if (length === undefined) {
    // 1xx, 204 and 304 have no body; anything else without a length ends at close (not used here).
    if (status === 204 || status === 304 || status < 200)
      return { status, body: Buffer.alloc(0), consumed: bodyStart, close };
    throw new Error(`response ${status} has neither Content-Length nor chunked encoding`);
  }
  if (buf.length < bodyStart + length) return undefined;
  return { status, body: buf.subarray(bodyStart, bodyStart + length), consumed: bodyStart + length, close };
}

class Connection {
  private readonly socket: net.Socket;
  private buf: Buffer = Buffer.alloc(0);
  private pending: Pending | undefined;
  closed = false;
  private readonly onIdle: (c: Connection) => void;

  constructor(host: string, port: number, onIdle: (c: Connection) => void) {
    this.onIdle = onIdle;
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (err) => this.fail(err));
    this.socket.on("close", () => this.fail(new Error("connection closed")));
  }

  send(request: Buffer, wantBody: boolean, timeoutMs: number): Promise<Http1Response> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error("timeout")), timeoutMs);
      this.pending = { resolve, reject, wantBody, timer };
      this.socket.write(request);
    });
  }

  private onData(chunk: Buffer) {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const p = this.pending;
    if (!p) return;
    let r: ReturnType<typeof parseResponse>;
    try {
      r = parseResponse(this.buf);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (!r) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    const body = p.wantBody ? Buffer.from(r.body) : Buffer.alloc(0);
    this.buf = this.buf.subarray(r.consumed);
    if (r.close) this.destroy();
    p.resolve({ status: r.status, body });
    if (!this.closed) this.onIdle(this);
  }

  private fail(err: Error) {
    const p = this.pending;
    this.pending = undefined;
    this.destroy();
    if (p) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }

  destroy() {
    this.closed = true;
    this.socket.destroy();
  }
}

/** Keep-alive connections to one origin, opened as needed: one per request in flight. */
export class Http1Pool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
  }

  /**
   * Sends `request` (a whole HTTP/1.1 request, see {@link requestFormatter}) on an idle connection,
   * or a new one: the caller bounds its requests in flight.
   */
  request(request: Buffer, opts: { wantBody: boolean; timeoutMs: number }): Promise<Http1Response> {
    let c = this.idle.pop();
    while (c?.closed) c = this.idle.pop();
    if (!c) {
      c = new Connection(this.host, this.port, (idle) => this.idle.push(idle));
      this.all.add(c);
    }
    const conn = c;
    return conn.send(request, opts.wantBody, opts.timeoutMs).finally(() => {
      if (conn.closed) this.all.delete(conn);
    });
  }

  close() {
    for (const c of this.all) c.destroy();
    this.all.clear();
    this.idle.length = 0;
  }
}

/**
 * Formats whole HTTP/1.1 requests to `baseUrl` as bytes: the request line, Host, the fixed `headers`
 * (made once), and Content-Type/Content-Length with a (JSON) body.
 */
export function requestFormatter(
  baseUrl: string,
  headers: Record<string, string>,
): (method: string, path: string, body?: string) => Buffer {
  let fixed = `Host: ${new URL(baseUrl).host}\r\n`;
  for (const [k, v] of Object.entries(headers)) fixed += `${k}: ${v}\r\n`;
  return (method, path, body) => {
    if (body === undefined) return Buffer.from(`${method} ${path} HTTP/1.1\r\n${fixed}\r\n`, "latin1");
    const bytes = Buffer.from(body, "utf8");
    const head = `${method} ${path} HTTP/1.1\r\n${fixed}Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`;
    return Buffer.concat([Buffer.from(head, "latin1"), bytes]);
  };
}
