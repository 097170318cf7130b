/**
 * The request line and what Node's HTTP parser refuses, before any route runs:
 *
 * - Absolute-form targets (`GET http://host/api/x HTTP/1.1`, RFC 9112 §3.2.2) are served only when
 *   they name us (the request's Host, or PUBLIC_URL's host); the rest of the gateway then sees the
 *   ordinary path. Any other target form is a 400 `INVALID_REQUEST_TARGET`.
 * - The path and query must percent-decode to valid UTF-8 (no overlong forms, no encoded
 *   surrogates) without NUL: a 400 before any value reaches a route, a service or Postgres.
 * - Requests Node's parser rejects (bad header characters, Content-Length with Transfer-Encoding,
 *   headers too large) get the platform's error array too, not fastify's `{"error": ...}`.
 */
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { invalid } from "@fop/kit/errors";
import type { FastifyInstance } from "fastify";
import type { ErrorItem } from "./errors.ts";

const lower = (s: string | undefined) => s?.toLowerCase();

/**
 * The origin-form (path and query) of `target`: itself when it already is one; for an absolute
 * http(s) target naming one of `ourHosts` (host[:port], case-insensitive) its path and query;
 * otherwise undefined.
 */
export function originForm(target: string, ourHosts: readonly (string | undefined)[]): string | undefined {
  if (target.startsWith("/")) return target;
  if (!/^https?:\/\//i.test(target)) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const host = url.host.toLowerCase();
  if (!ourHosts.some((h) => h !== undefined && lower(h) === host)) return undefined;
  // The raw path and query as sent (URL would normalise dot segments and escapes).
  const rest = target.slice(target.indexOf("//") + 2);
  const i = rest.search(/[/?#]/);
  const tail = (i < 0 ? "" : rest.slice(i)).replace(/#.*$/, "");
  return tail.startsWith("/") ? tail : `/${tail}`;
}

/** Throws a 400 unless every percent-escape of `target` decodes to valid UTF-8 without NUL. */
export function checkTargetEncoding(target: string): void {
  if (!target.includes("%")) return;
  if (/%00/.test(target)) {
    throw invalid("INVALID_CHARACTER", "The path and query must not contain NUL (%00).");
  }
  const q = target.indexOf("?");
  const parts = [q < 0 ? target : target.slice(0, q), ...(q < 0 ? [] : target.slice(q + 1).split(/[&=]/))];
  try {
    for (const part of parts) decodeURIComponent(part.replace(/\+/g, " "));
  } catch {
    throw invalid(
      "INVALID_ENCODING",
      "The path and query must be percent-encoded UTF-8 (this one has an invalid or overlong sequence).",
    );
  }
}

/** fastify's `rewriteUrl`: absolute-form targets naming us become their origin-form. */
export function rewriteTarget(publicUrl: string) {
  const publicHost = publicUrl ? new URL(publicUrl).host : undefined;
  return (req: { url?: string; headers: { host?: string } }): string => {
    const target = req.url ?? "/";
    return originForm(target, [req.headers.host, publicHost]) ?? target;
  };
}

export function installRequestChecks(app: FastifyInstance): void {
  app.addHook("onRequest", async (req) => {
    // rewriteTarget left a target alone only when it is not ours.
    if (!req.url.startsWith("/")) {
      throw invalid(
        "INVALID_REQUEST_TARGET",
        "The request target must be a path (or an absolute URL naming this API's host).",
      );
    }
    checkTargetEncoding(req.url);
  });
}

/** Raw response for a request Node's HTTP parser refused (fastify's clientErrorHandler). */
export function clientErrorHandler(err: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Socket) {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const item: ErrorItem =
    status === 431
      ? {
          summary: "The request headers are too large.",
          description: "The request line and headers may be at most 16 KiB together.",
          code: "HEADERS_TOO_LARGE",
        }
      : status === 408
        ? { summary: "The request took too long to arrive.", code: "REQUEST_TIMEOUT" }
        : {
            summary: "The request is malformed.",
            description:
              "It is not valid HTTP/1.1 (e.g. a control character in a header, or Content-Length together with Transfer-Encoding).",
            code: "MALFORMED_REQUEST",
          };
  // GraphQL clients get GraphQL's error shape (the request line tells: `GET /graphql?...`).
  const head = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 32).toString("latin1") : "";
  const body = /^[A-Z]+ \/graphql[?/ ]/.test(head)
    ? JSON.stringify({
        data: null,
        errors: [
          {
            message: item.description ?? item.summary,
            extensions: { code: item.code, kind: "INVALID", status },
          },
        ],
      })
    : JSON.stringify([item]);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "X-Content-Type-Options: nosniff\r\n" +
      "Cache-Control: no-store\r\n" +
      "Connection: close\r\n\r\n" +
      body,
  );
}
