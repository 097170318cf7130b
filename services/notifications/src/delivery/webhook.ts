/**
 * One webhook attempt: POST the body, signed the Standard Webhooks way (`webhook-id` = the event id,
 * so a receiver can drop repeats; `webhook-timestamp`; `webhook-signature` v1 HMAC-SHA256 with the
 * subscription's secret, made by the `standardwebhooks` package), plus the subscription's own
 * headers. 2xx is delivered; anything else (another status, a redirect, a timeout, a refused
 * address) is a failed attempt. Every connection's address passes the SSRF guard, including each
 * address a name resolves to at connect time.
 */
import type { LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import { type Resolve, urlHost } from "../domain/ssrf.ts";

export interface WebhookAttempt {
  url: string;
  /** The event id: the same on every attempt. */
  messageId: string;
  body: string;
  secret: string;
  headers: readonly { key: string; value: string }[];
}

export interface AttemptResult {
  status?: number;
  /** Undefined when delivered. */
  error?: string;
}

/**
 * A dns.lookup for the HTTP client that asks `resolve` and answers only addresses `allowed` admits
 * (all of the name's addresses must be admitted).
 */
export function guardedLookup(allowed: (address: string) => boolean, resolve: Resolve): LookupFunction {
  return ((
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (...args: unknown[]) => void,
  ) => {
    resolve(hostname).then(
      (found) => {
        const refused = found.find((a) => !allowed(a.address));
        const family =
          options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : Number(options.family ?? 0);
        const addresses = found.filter((a) => !family || a.family === family) as LookupAddress[];
        if (refused || addresses.length === 0) {
          const e = Object.assign(
            new Error(`refused address ${refused?.address ?? "(none)"} for ${hostname}`),
            { code: "EREFUSEDADDRESS" },
          );
          return callback(e);
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      },
      (err: Error) => callback(err),
    );
  }) as LookupFunction;
}

/** A sender of webhook attempts under an address guard and a per-attempt timeout. */
export function webhookSender(opts: {
  allowed: (address: string) => boolean;
  resolve: Resolve;
  timeoutMs: number;
  userAgent: string;
}) {
  const lookup = guardedLookup(opts.allowed, opts.resolve);
  return (a: WebhookAttempt): Promise<AttemptResult> =>
    new Promise((resolve) => {
      let url: URL;
      try {
        url = new URL(a.url);
      } catch {
        return resolve({ error: "invalid callback URL" });
      }
      const host = urlHost(url);
      if (isIP(host) && !opts.allowed(host)) return resolve({ error: `refused address ${host}` });
      const timestamp = new Date();
      const headers: Record<string, string> = {};
      for (const h of a.headers) headers[h.key] = h.value;
      Object.assign(headers, {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(a.body)),
        "user-agent": opts.userAgent,
        "webhook-id": a.messageId,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": new Webhook(a.secret).sign(a.messageId, timestamp, a.body),
      });
      const client = url.protocol === "https:" ? https : http;
      let done = false;
      const finish = (r: AttemptResult) => {
        if (done) return;
        done = true;
        resolve(r);
      };
      const req = client.request(
        url,
        { method: "POST", headers, lookup, timeout: opts.timeoutMs, agent: false },
        (res) => {
          const status = res.statusCode ?? 0;
          res.resume(); // the body is not read; drain it so the socket closes
          res.on("end", () =>
            finish(
              status >= 200 && status < 300 ? { status } : { status, error: `receiver answered ${status}` },
            ),
          );
          res.on("error", (err) => finish({ status, error: err.message }));
        },
      );
      // The whole attempt, not just idle time, is bounded.
      const timer = setTimeout(
        () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)),
        opts.timeoutMs,
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
      req.on("error", (err) => finish({ error: err.message }));
      req.on("close", () => clearTimeout(timer));
      req.end(a.body);
    });
}
