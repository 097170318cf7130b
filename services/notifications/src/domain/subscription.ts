/**
 * Webhook subscriptions (the platform's published SDK: SubscriptionForCreation / Subscription): a
 * name, one event kind and a WEBHOOK target {callbackUrl, headers}; the deprecated top-level
 * `callbackUrl` / `headers` are accepted and mirrored. Each gets a signing secret (Standard
 * Webhooks, `whsec_` + 24 random bytes) shown once, in the creation's answer. The callback URL is
 * stored normalised (as the delivery parses it). Pure functions.
 */

import { isSubscribableEvent } from "@fop/contracts/event-kinds";
import { invalid } from "@fop/kit/errors";
import { checkList } from "@fop/kit/validation";
import type { ChangeContext, JsonObject } from "./types.ts";

export const SUBSCRIPTION_LIMITS = {
  /** Subscriptions per event kind and tenant (as the platform). */
  perEvent: 5,
  /** Headers per target. */
  headers: 20,
  name: 256,
  callbackUrl: 2048,
  headerValue: 4096,
} as const;

/** Headers the delivery sets itself. */
const RESERVED_HEADERS =
  /^(webhook-.*|content-type|content-length|host|connection|transfer-encoding|user-agent)$/i;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

export interface Subscription {
  id: string;
  name: string;
  event: string;
  target: { type: "WEBHOOK"; callbackUrl: string; headers: { key: string; value: string }[] };
  created: string;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function checkHeaders(list: unknown, field: string): { key: string; value: string }[] {
  const headers = checkList(list, SUBSCRIPTION_LIMITS.headers, field) ?? [];
  const seen = new Set<string>();
  return headers.map((h, i) => {
    const at = `${field}/${i}`;
    if (!isObject(h) || typeof h.key !== "string" || typeof h.value !== "string") {
      throw invalid("INVALID_HEADER", `${at.slice(1)} must be {key, value} with string values.`, at);
    }
    if (!TOKEN.test(h.key))
      throw invalid("INVALID_HEADER", `${at.slice(1)}/key is not a header name.`, `${at}/key`);
    if (RESERVED_HEADERS.test(h.key)) {
      throw invalid(
        "RESERVED_HEADER",
        `${at.slice(1)}/key ${h.key} is set by the delivery itself.`,
        `${at}/key`,
      );
    }
    // What an HTTP header can carry (Node refuses anything else when sending): tab, visible ASCII
    // and space, and Latin-1's upper half.
    if (h.value.length > SUBSCRIPTION_LIMITS.headerValue || /[^\t\x20-\x7e\x80-\xff]/.test(h.value)) {
      throw invalid(
        "INVALID_HEADER",
        `${at.slice(1)}/value must be at most ${SUBSCRIPTION_LIMITS.headerValue} characters of tab, space, visible ASCII or Latin-1 (no line breaks or control characters).`,
        `${at}/value`,
      );
    }
    if (seen.has(h.key.toLowerCase()))
      throw invalid("DUPLICATE_HEADER", `${field.slice(1)} names ${h.key} twice.`, `${at}/key`);
    seen.add(h.key.toLowerCase());
    return { key: h.key, value: h.value };
  });
}

/**
 * The subscription a SubscriptionForCreation body asks for; `urlProblem` says why a callback URL
 * may not be used (SSRF rules, ssrf.ts).
 */
export function newSubscription(
  body: JsonObject,
  c: ChangeContext,
  urlProblem: (url: string) => string | undefined,
): Subscription {
  const name = body.name;
  if (typeof name !== "string" || name.trim() === "" || name.length > SUBSCRIPTION_LIMITS.name) {
    throw invalid(
      "NAME_REQUIRED",
      `name is required (1 to ${SUBSCRIPTION_LIMITS.name} characters).`,
      "/name",
    );
  }
  const event = body.event;
  if (typeof event !== "string" || !isSubscribableEvent(event)) {
    throw invalid(
      "UNKNOWN_EVENT",
      "event must be an event kind of the platform (GET /api/supportedevents lists them).",
      "/event",
    );
  }
  let base = "/target";
  let target = body.target;
  if (target === undefined || target === null) {
    // Deprecated form: callbackUrl and headers at the top level.
    if (body.callbackUrl === undefined) {
      throw invalid("TARGET_REQUIRED", "target (or the deprecated callbackUrl) is required.", "/target");
    }
    target = { type: "WEBHOOK", callbackUrl: body.callbackUrl, headers: body.headers ?? [] };
    base = "";
  }
  if (!isObject(target)) throw invalid("TARGET_REQUIRED", "target must be an object.", "/target");
  if (target.type !== "WEBHOOK") {
    throw invalid(
      "UNSUPPORTED_TARGET",
      "target/type must be WEBHOOK (the only target this platform delivers to).",
      "/target/type",
    );
  }
  const url = target.callbackUrl;
  const urlField = `${base}/callbackUrl`;
  if (typeof url !== "string" || url.length > SUBSCRIPTION_LIMITS.callbackUrl) {
    throw invalid(
      "INVALID_CALLBACK_URL",
      `${urlField.slice(1)} is required (a URL of at most ${SUBSCRIPTION_LIMITS.callbackUrl} characters).`,
      urlField,
    );
  }
  const problem = urlProblem(url);
  if (problem) throw invalid("INVALID_CALLBACK_URL", `${urlField.slice(1)} ${problem}.`, urlField);
  // Stored as delivered: the URL parser's form (http://127.1/ is http://127.0.0.1/), so what a
  // client reads back is the address the webhooks go to.
  const callbackUrl = URL.parse(url)?.href;
  if (callbackUrl === undefined || callbackUrl.length > SUBSCRIPTION_LIMITS.callbackUrl) {
    throw invalid(
      "INVALID_CALLBACK_URL",
      `${urlField.slice(1)} must be an absolute URL of at most ${SUBSCRIPTION_LIMITS.callbackUrl} characters (once normalised).`,
      urlField,
    );
  }
  const headers = checkHeaders(target.headers, `${base}/headers`);
  return {
    id: c.newId(),
    name,
    event,
    target: { type: "WEBHOOK", callbackUrl, headers },
    created: c.now.toISOString(),
  };
}

/** The read model: the target, mirrored in the deprecated top-level fields for older clients. */
export const subscriptionDoc = (s: Subscription): JsonObject => ({
  id: s.id,
  name: s.name,
  event: s.event,
  target: s.target,
  callbackUrl: s.target.callbackUrl,
  headers: s.target.headers,
  created: s.created,
});
