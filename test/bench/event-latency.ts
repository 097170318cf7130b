/**
 * Event latency: how long from a write until its audit record exists. N categories are created
 * through the gateway (a few at a time); latency = the audit record's `created` minus the
 * category's `created` — both stamped by services on this machine's clock, so no polling skew.
 */
import pg from "pg";
import type { BenchSystem } from "./system.ts";

export interface EventLatency {
  writes: number;
  concurrency: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Writes per second the gateway accepted meanwhile. */
  writesPerSec: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

export async function measureEventLatency(
  bench: BenchSystem,
  writes: number,
  concurrency: number,
): Promise<EventLatency> {
  const token = await bench.token("latency");
  const created = new Map<string, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < writes) {
        const i = next++;
        const res = await fetch(`${bench.baseUrl}/api/categories`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ nameLocalized: { en_US: `latency ${i}` } }),
        });
        if (res.status !== 201) throw new Error(`write failed: ${res.status} ${await res.text()}`);
        const body = (await res.json()) as { id: string; created: string };
        created.set(body.id, Date.parse(body.created));
      }
    }),
  );
  const writeSeconds = (performance.now() - started) / 1000;
  const db = new pg.Client({ connectionString: bench.system.db.serviceUrl("audit") });
  await db.connect();
  try {
    const deadline = Date.now() + 120_000;
    let rows: { entity_ref: string; created: Date }[] = [];
    while (Date.now() < deadline) {
      rows = (
        await db.query<{ entity_ref: string; created: Date }>(
          "select entity_ref, created from audit.audit_record where tenant_id = 'latency' and operation_name = 'CATEGORY_CREATED'",
        )
      ).rows;
      if (rows.length >= writes) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (rows.length < writes) throw new Error(`only ${rows.length} of ${writes} audit records arrived`);
    const latencies = rows.map((r) => r.created.getTime() - created.get(r.entity_ref)!).sort((a, b) => a - b);
    return {
      writes,
      concurrency,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies[latencies.length - 1] ?? 0,
      writesPerSec: writes / writeSeconds,
    };
  } finally {
    await db.end();
  }
}
