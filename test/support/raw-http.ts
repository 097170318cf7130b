/**
 * HTTP/1.1 over a plain socket, for what fetch will not send: absolute-form request targets, bytes
 * that are not UTF-8, malformed headers, Content-Length together with Transfer-Encoding.
 */
import net from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
}

function decodeChunked(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = b.indexOf("\r\n", i);
    if (eol < 0) break;
    const size = Number.parseInt(b.subarray(i, eol).toString(), 16);
    if (!size) break;
    out.push(b.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Sends `request` (the whole message, head and body) and reads the answer until the server closes. */
export function rawRequest(
  baseUrl: string,
  request: string | Buffer,
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString()}`));
    }, timeoutMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const head = all
        .subarray(0, split < 0 ? all.length : split)
        .toString("latin1")
        .split("\r\n");
      const status = Number(head[0]?.split(" ")[1]);
      const headers: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const i = line.indexOf(":");
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let raw: Buffer = split < 0 ? Buffer.alloc(0) : all.subarray(split + 4);
      if (headers["transfer-encoding"] === "chunked") raw = decodeChunked(raw);
      const body = raw.toString("utf8");
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {}
      resolve({ status, headers, body, json });
    });
    socket.write(request);
  });
}

/** A request message: `Connection: close` is added so the answer ends with the connection. */
export function message(
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`, "Connection: close"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
  return body === undefined ? head : Buffer.concat([head, Buffer.from(body)]);
}
