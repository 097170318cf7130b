import { describe, expect, it } from "vitest";
import { afterAttempt, type RetryPolicy, retryDelay, webhookBody } from "./delivery.ts";

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 10_000 };
const zero = () => 0;
const one = () => 1;

describe("retryDelay", () => {
  it("doubles from the base and caps at maxDelayMs (no jitter)", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map((n) => retryDelay(policy, n, zero))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
    expect(retryDelay(policy, 0, zero)).toBe(1000);
    expect(retryDelay(policy, 1000, zero)).toBe(10_000);
  });

  it("adds up to 20% jitter", () => {
    expect(retryDelay(policy, 1, one)).toBe(1200);
    expect(retryDelay(policy, 3, one)).toBe(4800);
    expect(retryDelay(policy, 2, () => 0.5)).toBe(2200);
    for (let i = 0; i < 50; i++) {
      const d = retryDelay(policy, 2);
      expect(d).toBeGreaterThanOrEqual(2000);
      expect(d).toBeLessThanOrEqual(2400);
    }
  });
});

describe("afterAttempt", () => {
  it("a success is DELIVERED, on any attempt", () => {
    expect(afterAttempt(policy, 1, undefined)).toEqual({ state: "DELIVERED" });
    expect(afterAttempt(policy, 5, undefined)).toEqual({ state: "DELIVERED" });
  });

  it("a failure before the last attempt is PENDING with the retry delay", () => {
    expect(afterAttempt(policy, 1, "boom", zero)).toEqual({ state: "PENDING", delayMs: 1000, error: "boom" });
    expect(afterAttempt(policy, 4, "boom", one)).toEqual({ state: "PENDING", delayMs: 9600, error: "boom" });
  });

  it("a failure at maxAttempts (or beyond) is DEAD", () => {
    expect(afterAttempt(policy, 5, "receiver answered 500", zero)).toEqual({
      state: "DEAD",
      error: "receiver answered 500",
    });
    expect(afterAttempt(policy, 6, "x", zero)).toEqual({ state: "DEAD", error: "x" });
    expect(afterAttempt({ ...policy, maxAttempts: 1 }, 1, "x")).toEqual({ state: "DEAD", error: "x" });
  });
});

describe("webhookBody", () => {
  it("is the WebHookEvent envelope", () => {
    expect(
      webhookBody({
        event: "PICK_JOB_CREATED",
        eventId: "e1",
        occurredAt: "2026-01-01T00:00:00.000Z",
        payload: { id: "p" },
      }),
    ).toEqual({
      event: "PICK_JOB_CREATED",
      eventId: "e1",
      created: "2026-01-01T00:00:00.000Z",
      payload: { id: "p" },
    });
    expect(webhookBody({ event: "X", eventId: "e", occurredAt: "t", payload: undefined }).payload).toBeNull();
  });
});
