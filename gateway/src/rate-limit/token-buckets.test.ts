/**
 * The cluster's token buckets, replicas simulated on one clock: each ticks every interval at its
 * own phase and its report reaches the others `latencyMs` later, as over NATS.
 */
import { describe, expect, it } from "vitest";
import { PEER_WINDOW_INTERVALS, type ReportEntry, TokenBuckets } from "./token-buckets.ts";

const INTERVAL = 100;

/** Replicas on a simulated clock; `run` advances it in 1 ms steps, delivering ticks and reports. */
function cluster(n: number, opts: { perSecond: number; burst: number; latencyMs?: number }) {
  let now = 0;
  const clock = () => now;
  const replicas = Array.from(
    { length: n },
    () => new TokenBuckets({ ...opts, intervalMs: INTERVAL, clock }),
  );
  const latency = opts.latencyMs ?? 5;
  const inFlight: { at: number; from: number; report: ReportEntry[] }[] = [];
  const step = () => {
    now++;
    replicas.forEach((r, i) => {
      // Phases spread over the interval, as independent processes' timers are.
      if ((now + Math.floor((i * INTERVAL) / n)) % INTERVAL === 0)
        inFlight.push({ at: now + latency, from: i, report: r.tick() });
    });
    for (let k = inFlight.length - 1; k >= 0; k--) {
      const m = inFlight[k]!;
      if (m.at > now) continue;
      inFlight.splice(k, 1);
      replicas.forEach((r, i) => {
        if (i !== m.from) r.merge(`replica-${m.from}`, m.report);
      });
    }
  };
  return {
    replicas,
    get now() {
      return now;
    },
    /** Advances `ms`, calling `each` every ms before the replicas' work of that ms. */
    run(ms: number, each?: (t: number) => void) {
      for (let t = 0; t < ms; t++) {
        each?.(now);
        step();
      }
    },
  };
}

/**
 * `perSecond` requests of `tenant` evenly spaced (one every 1000/perSecond ms, fractional ms
 * carried), each to the replica `pick` names; returns the accepted count.
 */
function load(
  c: ReturnType<typeof cluster>,
  ms: number,
  flows: { tenant: string; perSecond: number; pick: (k: number) => number }[],
) {
  const accepted = flows.map(() => 0);
  const sent = flows.map(() => 0);
  c.run(ms, (t) => {
    flows.forEach((f, i) => {
      const due = Math.floor(((t + 1) * f.perSecond) / 1000);
      while (sent[i]! < due) {
        if (c.replicas[f.pick(sent[i]!)]!.take(f.tenant) === 0) accepted[i]!++;
        sent[i]!++;
      }
    });
  });
  return accepted;
}

/** A replica index 0..2 per call, from a linear congruential generator seeded with `seed`. */
function seeded(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % 3;
  };
}

describe("TokenBuckets on one replica (no peers)", () => {
  it("allows the burst, then the sustained rate, per tenant", () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 2, burst: 3, intervalMs: INTERVAL, clock: () => now });
    expect([0, 0, 0].map(() => b.take("t"))).toEqual([0, 0, 0]);
    expect(b.take("t")).toBe(1);
    expect(b.take("other")).toBe(0);
    now = 500;
    expect(b.take("t")).toBe(0); // one token refilled after 0.5 s at 2/s
    expect(b.take("t")).toBeGreaterThan(0);
  });

  it.each([
    // [perSecond, balance before, Retry-After]
    [10, 0.5, 1],
    [2, -3, 2], // a debt of 4 tokens at 2/s
    [2, -3.5, 3],
    [1, -9.2, 11],
  ])("at %d/s with %d tokens: Retry-After %d s", (perSecond, tokens, retryAfter) => {
    const b = new TokenBuckets({ perSecond, burst: 20, intervalMs: INTERVAL, clock: () => 0 });
    b.merge("peer", [["t", 20 - tokens, 1]]);
    expect(b.balance("t")).toBeCloseTo(tokens);
    expect(b.take("t")).toBe(retryAfter);
  });
});

describe("TokenBuckets across replicas", () => {
  it("holds the sustained rate over 3 replicas: a tenant at 3x its limit, spread evenly, for 10 s", () => {
    const c = cluster(3, { perSecond: 100, burst: 100 });
    const [accepted] = load(c, 10_000, [{ tenant: "t", perSecond: 300, pick: (k) => k % 3 }]);
    // 100/s x 10 s + the burst; exact up to what one interval can hold.
    expect(accepted).toBeGreaterThanOrEqual(0.97 * 1100);
    expect(accepted).toBeLessThanOrEqual(1.03 * 1100);
  });

  it.each([
    ["all on one replica", () => 0],
    ["uneven (1:2:7)", (k: number) => [0, 1, 1, 2, 2, 2, 2, 2, 2, 2][k % 10]!],
    ["random (seeded)", seeded(27)],
  ])("holds it whatever the spread: %s", (_what, pick) => {
    const c = cluster(3, { perSecond: 100, burst: 100 });
    const [accepted] = load(c, 10_000, [{ tenant: "t", perSecond: 300, pick }]);
    expect(accepted).toBeGreaterThanOrEqual(0.97 * 1100);
    expect(accepted).toBeLessThanOrEqual(1.03 * 1100);
  });

  it("holds it with 10 replicas and 20 ms between a report and its arrival", () => {
    const c = cluster(10, { perSecond: 100, burst: 200, latencyMs: 20 });
    const [accepted] = load(c, 10_000, [{ tenant: "t", perSecond: 500, pick: (k) => k % 10 }]);
    expect(accepted).toBeGreaterThanOrEqual(0.95 * 1200);
    expect(accepted).toBeLessThanOrEqual(1.05 * 1200);
  });

  it("leaves another tenant alone", () => {
    const c = cluster(3, { perSecond: 100, burst: 100 });
    const [loud, quiet] = load(c, 5_000, [
      { tenant: "loud", perSecond: 300, pick: (k) => k % 3 },
      { tenant: "quiet", perSecond: 50, pick: (k) => (k + 1) % 3 },
    ]);
    expect(loud).toBeLessThanOrEqual(1.03 * 600);
    expect(quiet).toBe(250);
  });

  it("ends a burst spread over 3 replicas near the burst, not at 3 x the burst", () => {
    const c = cluster(3, { perSecond: 10, burst: 90 });
    c.run(1000); // the replicas hear of each other
    // 600 requests in 30 ms, round robin: within one interval, before any report on the tenant.
    const [accepted] = load(c, 30, [{ tenant: "t", perSecond: 20_000, pick: (k) => k % 3 }]);
    expect(accepted).toBeGreaterThanOrEqual(90 - 3);
    expect(accepted).toBeLessThanOrEqual(90 + 3);
  });

  it("gives a burst on one replica the whole burst within its first intervals", () => {
    const c = cluster(3, { perSecond: 10, burst: 90 });
    c.run(1000);
    // 90 requests over 300 ms, one replica: its peers report nothing of the tenant.
    const [accepted] = load(c, 300, [{ tenant: "t", perSecond: 300, pick: () => 0 }]);
    expect(accepted).toBeGreaterThanOrEqual(88);
  });

  it("goes negative when the others took the tokens it counted as free, and refuses until paid back", () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 10, burst: 10, intervalMs: INTERVAL, clock: () => now });
    for (let i = 0; i < 10; i++) expect(b.take("t")).toBe(0);
    // Meanwhile two peers took the burst too (each saw a full bucket before any report).
    b.merge("a", [["t", 10, 10]]);
    b.merge("b", [["t", 10, 10]]);
    expect(b.balance("t")).toBe(-20);
    expect(b.take("t")).toBe(3); // 21 tokens short at 10/s
    now = 2000; // 20 refilled: still short of one
    expect(b.balance("t")).toBeCloseTo(0);
    expect(b.take("t")).toBe(1);
    now = 2100;
    expect(b.take("t")).toBe(0);
  });

  it("gives the estimated share back at the tick", () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 1, burst: 30, intervalMs: INTERVAL, clock: () => now });
    b.merge("a", [["t", 0, 1]]);
    b.merge("b", [["t", 0, 1]]);
    now = 200; // past the bucket's first interval: two peers known to take for the tenant
    expect(b.take("t")).toBe(0);
    expect(b.balance("t")).toBeCloseTo(30 - 3); // 1 + 2 estimated
    expect(b.tick()).toEqual([["t", 1, 1]]);
    expect(b.balance("t")).toBeCloseTo(30 - 1);
    // Their real takes come in instead.
    b.merge("a", [["t", 4, 4]]);
    expect(b.balance("t")).toBeCloseTo(30 - 5);
  });

  it("stops counting a peer for a tenant it has not reported for the peer window", () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 1, burst: 100, intervalMs: INTERVAL, clock: () => now });
    b.merge("a", [["t", 0, 1]]);
    now = 200;
    b.take("t");
    expect(b.balance("t")).toBeCloseTo(100 - 2);
    b.tick();
    // The peer stays alive (empty reports) but reports no more requests of the tenant.
    for (let i = 0; i < PEER_WINDOW_INTERVALS + 1; i++) {
      now += INTERVAL;
      b.merge("a", []);
      b.tick();
    }
    expect(b.peers).toBe(1);
    const before = b.balance("t");
    b.take("t");
    expect(b.balance("t")).toBeCloseTo(before - 1);
  });
});

describe("TokenBuckets' memory", () => {
  /** A replica on its own clock, ticking every interval as the plugin does. */
  function ticking(opts: { perSecond: number; burst: number }) {
    let now = 0;
    const b = new TokenBuckets({ ...opts, intervalMs: INTERVAL, clock: () => now });
    return {
      b,
      /** Advances `ms` (whole intervals), ticking at each; `each` before every tick. */
      advance(ms: number, each?: () => void) {
        for (let t = 0; t < ms; t += INTERVAL) {
          now += INTERVAL;
          each?.();
          b.tick();
        }
      },
    };
  }
  const WINDOW = PEER_WINDOW_INTERVALS * INTERVAL;

  it("drops a bucket once it is full again and nobody used it for the peer window", () => {
    const { b, advance } = ticking({ perSecond: 10, burst: 50 });
    for (let i = 0; i < 1000; i++) b.take(`tenant-${i}`);
    for (let i = 0; i < 50; i++) b.take("busy");
    expect(b.size).toBe(1001);
    // The 1000 are full again after 0.1 s, "busy" (empty) after 5 s; each then goes within two windows.
    advance(WINDOW - INTERVAL);
    expect(b.size).toBe(1001);
    advance(2 * WINDOW);
    expect(b.size).toBe(1);
    advance(5000);
    expect(b.size).toBe(0);
  });

  it("keeps a bucket with a debt, and one that peers report", () => {
    const { b, advance } = ticking({ perSecond: 1, burst: 5 });
    b.merge("a", [["owed", 50, 50]]);
    advance(10_000);
    expect(b.balance("owed")).toBeCloseTo(-35);
    advance(3 * WINDOW, () => b.merge("a", [["reported", 0, 1]]));
    expect(b.size).toBe(2);
    expect(b.peers).toBe(1);
    advance(60_000);
    expect(b.size).toBe(0);
    expect(b.peers).toBe(0);
  });
});
