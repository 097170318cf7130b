/**
 * What the cluster rate limit costs per request, on one replica with the exchange in place: each
 * interval it takes for its own requests, ticks (its report, encoded), and decodes and merges one
 * report from every peer, each as long as its own (the peers serve as many requests as it does).
 * All of that, divided by its own requests, is the cost per request; `take` alone is printed too.
 * The exchange's work per request grows with the peers: every replica merges the whole cluster's
 * reports, at most one entry per request anywhere (fewer when a tenant repeats within an interval).
 *
 * Run: `node --conditions=source gateway/src/rate-limit/token-buckets.bench.ts [peers] [rate] [tenants]`
 * (default: 19 peers, the production HPA's 20 replicas; 2,000 requests/s per replica; 1,000 tenants,
 * the requests going round them, so a report names min(tenants, rate/10) of them).
 */
import { decodeReport, encodeReport } from "./nats-sync.ts";
import { type ReportEntry, TokenBuckets } from "./token-buckets.ts";

const peers = Number(process.argv[2] ?? 19);
const rate = Number(process.argv[3] ?? 2000);
const tenantCount = Number(process.argv[4] ?? 1000);
const INTERVAL_MS = 100;
const INTERVALS = 2_000;
const ROUNDS = 5;
const perInterval = Math.round((rate * INTERVAL_MS) / 1000);

const tenants = Array.from({ length: tenantCount }, (_, i) => `tenant-${i}`);
/** A peer's message naming the tenants of its `perInterval` requests from `from` on. */
const peerMessage = (p: number, from: number) => {
  const counts = new Map<string, number>();
  for (let i = 0; i < perInterval; i++) {
    const t = tenants[(from + i) % tenantCount]!;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return Buffer.from(
    encodeReport(
      `peer-${p}`,
      [...counts].map(([t, n]): ReportEntry => [t, n, n]),
    ),
  );
};
// Peers' messages for a few interval offsets, prepared outside the measurement.
const messages = Array.from({ length: 10 }, (_, k) =>
  Array.from({ length: peers }, (_, p) => peerMessage(p, (k * perInterval + p * 37) % tenantCount)),
);

function round() {
  const b = new TokenBuckets({ perSecond: 1000, burst: 2000, intervalMs: INTERVAL_MS });
  let next = 0;
  const started = performance.now();
  for (let k = 0; k < INTERVALS; k++) {
    for (let i = 0; i < perInterval; i++) b.take(tenants[next++ % tenantCount]!);
    encodeReport("me", b.tick());
    for (const m of messages[k % messages.length]!) {
      const r = decodeReport(m)!;
      b.merge(r.peer, r.report);
    }
  }
  const allUs = ((performance.now() - started) * 1000) / (INTERVALS * perInterval);
  const t0 = performance.now();
  const takes = INTERVALS * perInterval;
  for (let i = 0; i < takes; i++) b.take(tenants[i % tenantCount]!);
  const takeUs = ((performance.now() - t0) * 1000) / takes;
  return { allUs, takeUs };
}

round(); // warm-up
const results = Array.from({ length: ROUNDS }, round);
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `${peers} peers, ${rate} requests/s per replica, ${tenantCount} tenants (median of ${ROUNDS} rounds): ` +
    `${median(results.map((r) => r.allUs)).toFixed(3)} us/request with the exchange, ` +
    `take alone ${median(results.map((r) => r.takeUs)).toFixed(3)} us/request`,
);
