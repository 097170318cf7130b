import { describe, expect, it } from "vitest";
import { newSubscription, SUBSCRIPTION_LIMITS, subscriptionDoc } from "./subscription.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

const c: ChangeContext = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "sub-1" };
const ok = () => undefined;
const URL_ = "https://hooks.example.com/in";

const withTarget = (over: JsonObject = {}, target: JsonObject = {}): JsonObject => ({
  name: "orders",
  event: "PICK_JOB_CREATED",
  target: { type: "WEBHOOK", callbackUrl: URL_, headers: [{ key: "X-Api-Key", value: "s3cret" }], ...target },
  ...over,
});

const headers = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `X-H${i}`, value: `v${i}` }));

/** What `f` throws (fails the test when it throws nothing). */
function thrown(f: () => unknown): Record<string, unknown> {
  try {
    f();
  } catch (e) {
    return e as Record<string, unknown>;
  }
  throw new Error("expected an error");
}

const invalidAt = (field: string, code?: string) =>
  expect.objectContaining({ kind: "invalid", field, ...(code ? { code } : {}) });

describe("newSubscription", () => {
  it("builds the same subscription from the target form and the deprecated top-level form", () => {
    const expected = {
      id: "sub-1",
      name: "orders",
      event: "PICK_JOB_CREATED",
      target: { type: "WEBHOOK", callbackUrl: URL_, headers: [{ key: "X-Api-Key", value: "s3cret" }] },
      created: "2026-11-25T10:00:00.000Z",
    };
    expect(newSubscription(withTarget(), c, ok)).toEqual(expected);
    const deprecated = newSubscription(
      {
        name: "orders",
        event: "PICK_JOB_CREATED",
        callbackUrl: URL_,
        headers: [{ key: "X-Api-Key", value: "s3cret" }],
      },
      c,
      ok,
    );
    expect(deprecated).toEqual(expected);
  });

  it("defaults headers to none in both forms", () => {
    const t = newSubscription(
      { name: "n", event: "PICK_JOB_CREATED", target: { type: "WEBHOOK", callbackUrl: URL_ } },
      c,
      ok,
    );
    const d = newSubscription({ name: "n", event: "PICK_JOB_CREATED", callbackUrl: URL_ }, c, ok);
    expect(t.target.headers).toEqual([]);
    expect(d).toEqual(t);
  });

  it("subscriptionDoc mirrors the target's callbackUrl and headers at the top level", () => {
    const s = newSubscription(withTarget(), c, ok);
    expect(subscriptionDoc(s)).toEqual({
      id: "sub-1",
      name: "orders",
      event: "PICK_JOB_CREATED",
      target: s.target,
      callbackUrl: URL_,
      headers: [{ key: "X-Api-Key", value: "s3cret" }],
      created: "2026-11-25T10:00:00.000Z",
    });
  });

  it("requires a name and a known event", () => {
    for (const name of [undefined, "", "   ", 5, "x".repeat(SUBSCRIPTION_LIMITS.name + 1)]) {
      const body = withTarget();
      if (name === undefined) delete body.name;
      else body.name = name;
      expect(thrown(() => newSubscription(body, c, ok))).toEqual(invalidAt("/name", "NAME_REQUIRED"));
    }
    expect(
      newSubscription(withTarget({ name: "x".repeat(SUBSCRIPTION_LIMITS.name) }), c, ok).name,
    ).toHaveLength(256);
    for (const event of ["NOPE", "pick_job_created", "", 1]) {
      expect(thrown(() => newSubscription(withTarget({ event }), c, ok))).toEqual(
        invalidAt("/event", "UNKNOWN_EVENT"),
      );
    }
    const noEvent = withTarget();
    delete noEvent.event;
    expect(thrown(() => newSubscription(noEvent, c, ok))).toEqual(invalidAt("/event", "UNKNOWN_EVENT"));
  });

  it("requires a WEBHOOK target (or the deprecated callbackUrl)", () => {
    expect(thrown(() => newSubscription(withTarget({}, { type: "EMAIL" }), c, ok))).toEqual(
      invalidAt("/target/type", "UNSUPPORTED_TARGET"),
    );
    const noType = withTarget();
    delete (noType.target as JsonObject).type;
    expect(thrown(() => newSubscription(noType, c, ok))).toEqual(
      invalidAt("/target/type", "UNSUPPORTED_TARGET"),
    );
    expect(thrown(() => newSubscription({ name: "n", event: "PICK_JOB_CREATED" }, c, ok))).toEqual(
      invalidAt("/target", "TARGET_REQUIRED"),
    );
    expect(thrown(() => newSubscription(withTarget({ target: "https://x" }), c, ok))).toEqual(
      invalidAt("/target", "TARGET_REQUIRED"),
    );
  });

  it("uses the urlProblem callback's message, naming /target/callbackUrl or the deprecated /callbackUrl", () => {
    const seen: string[] = [];
    const problem = (url: string) => {
      seen.push(url);
      return "must not point at a private address";
    };
    const e = thrown(() => newSubscription(withTarget(), c, problem));
    expect(e).toEqual(invalidAt("/target/callbackUrl", "INVALID_CALLBACK_URL"));
    expect(e.message).toContain("must not point at a private address");
    expect(seen).toEqual([URL_]);
    const d = thrown(() =>
      newSubscription({ name: "n", event: "PICK_JOB_CREATED", callbackUrl: URL_ }, c, problem),
    );
    expect(d).toEqual(invalidAt("/callbackUrl", "INVALID_CALLBACK_URL"));
    expect(d.message).toContain("must not point at a private address");
  });

  it("requires the callback URL as a string of bounded length", () => {
    expect(thrown(() => newSubscription(withTarget({}, { callbackUrl: 3 }), c, ok))).toEqual(
      invalidAt("/target/callbackUrl", "INVALID_CALLBACK_URL"),
    );
    const long = `https://e.com/${"a".repeat(SUBSCRIPTION_LIMITS.callbackUrl)}`;
    expect(thrown(() => newSubscription(withTarget({}, { callbackUrl: long }), c, ok))).toEqual(
      invalidAt("/target/callbackUrl", "INVALID_CALLBACK_URL"),
    );
    expect(
      thrown(() => newSubscription({ name: "n", event: "PICK_JOB_CREATED", callbackUrl: null }, c, ok)),
    ).toEqual(invalidAt("/callbackUrl", "INVALID_CALLBACK_URL"));
  });

  it("stores the callback URL as the delivery parses it (normalised), in both forms", () => {
    for (const [typed, stored] of [
      ["HTTPS://Hooks.Example.COM:443/a/../in?x=1", "https://hooks.example.com/in?x=1"],
      ["https://0x7f.1:8443/in", "https://127.0.0.1:8443/in"],
      ["https://[0:0:0:0:0:ffff:127.0.0.1]/in", "https://[::ffff:7f00:1]/in"],
      ["https://hooks.example.com", "https://hooks.example.com/"],
    ] as const) {
      expect(newSubscription(withTarget({}, { callbackUrl: typed }), c, ok).target.callbackUrl, typed).toBe(
        stored,
      );
      expect(
        newSubscription({ name: "n", event: "PICK_JOB_CREATED", callbackUrl: typed }, c, ok).target
          .callbackUrl,
      ).toBe(stored);
    }
    // Longer once normalised than the limit (each space becomes %20): refused, not stored cut.
    const spaced = `https://e.com/${" ".repeat(SUBSCRIPTION_LIMITS.callbackUrl - 20)}x`;
    expect(thrown(() => newSubscription(withTarget({}, { callbackUrl: spaced }), c, ok))).toEqual(
      invalidAt("/target/callbackUrl", "INVALID_CALLBACK_URL"),
    );
  });

  it("refuses reserved header names, naming the key", () => {
    for (const key of [
      "webhook-signature",
      "Webhook-Id",
      "Content-Type",
      "content-length",
      "Host",
      "User-Agent",
    ]) {
      expect(
        thrown(() => newSubscription(withTarget({}, { headers: [{ key, value: "x" }] }), c, ok)),
      ).toEqual(invalidAt("/target/headers/0/key", "RESERVED_HEADER"));
    }
    expect(
      thrown(() =>
        newSubscription(
          {
            name: "n",
            event: "PICK_JOB_CREATED",
            callbackUrl: URL_,
            headers: [{ key: "webhook-signature", value: "x" }],
          },
          c,
          ok,
        ),
      ),
    ).toEqual(invalidAt("/headers/0/key", "RESERVED_HEADER"));
  });

  it("refuses header values with CR, LF or NUL, and keys that are not header names", () => {
    for (const value of [
      "a\r\nX-Evil: 1",
      "a\nb",
      "a\rb",
      "a\0b",
      "x".repeat(SUBSCRIPTION_LIMITS.headerValue + 1),
    ]) {
      expect(
        thrown(() => newSubscription(withTarget({}, { headers: [{ key: "X-A", value }] }), c, ok)),
      ).toEqual(invalidAt("/target/headers/0/value", "INVALID_HEADER"));
    }
    for (const key of ["", "X A", "X:A", "X\nA"]) {
      expect(
        thrown(() => newSubscription(withTarget({}, { headers: [{ key, value: "v" }] }), c, ok)),
      ).toEqual(invalidAt("/target/headers/0/key", "INVALID_HEADER"));
    }
    expect(thrown(() => newSubscription(withTarget({}, { headers: [{ key: "X-A" }] }), c, ok))).toEqual(
      invalidAt("/target/headers/0", "INVALID_HEADER"),
    );
  });

  it(`accepts ${SUBSCRIPTION_LIMITS.headers} headers and refuses ${SUBSCRIPTION_LIMITS.headers + 1}`, () => {
    expect(SUBSCRIPTION_LIMITS.headers).toBe(20);
    expect(newSubscription(withTarget({}, { headers: headers(20) }), c, ok).target.headers).toHaveLength(20);
    expect(thrown(() => newSubscription(withTarget({}, { headers: headers(21) }), c, ok))).toEqual(
      invalidAt("/target/headers", "LIMIT_EXCEEDED"),
    );
  });

  it("refuses a header name twice (case-insensitive), naming the second", () => {
    const dup = [
      { key: "X-Api-Key", value: "a" },
      { key: "X-Other", value: "b" },
      { key: "x-api-key", value: "c" },
    ];
    expect(thrown(() => newSubscription(withTarget({}, { headers: dup }), c, ok))).toEqual(
      invalidAt("/target/headers/2/key", "DUPLICATE_HEADER"),
    );
  });

  it("has a per-event limit constant", () => {
    expect(SUBSCRIPTION_LIMITS.perEvent).toBe(5);
  });
});
