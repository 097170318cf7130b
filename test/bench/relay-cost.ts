/**
 * `npm run bench -- --relay` (or BENCH_RELAY=1): what the outbox relay costs per event, its fast
 * path (events published from memory, at most one publish per `gatherMs`) against the claiming
 * relay it replaced (`fastPath: false`: a commit wakes the poll, which claims rows in a transaction),
 * in the same run (issue 26).
 *
 * Per configuration: a database and a stream of its own; an in-process writer commits one event
 * per statement (`Outbox.write` of `select 1` and one outbox row, the shape of a create) on a fixed
 * schedule (open loop) at each rate of BENCH_RELAY_RATES for BENCH_DURATION seconds, after 500
 * unmeasured writes; the run ends when the outbox is empty. CPU per event from /proc: this process
 * (writer + relay; the writer's share is the same in every configuration), every Postgres backend,
 * the NATS server; and the mean publish batch (events per publish, from the relay's counters),
 * which is what JetStream and every consumer downstream handle per message batch.
 */
import { createSqlPool } from "@fop/kit/db/sql";
import { kitEventMigrations } from "@fop/kit/events/migrations";
import { connectNats } from "@fop/kit/events/nats";
import { Outbox, outboxRelay } from "@fop/kit/events/outbox";
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import type { ServiceModule } from "@fop/kit/service";
import { createTestDatabase } from "@fop/kit/testing/db";
import { parsePrometheusText } from "../support/prometheus.ts";
import { type CpuProbe, cpuPerRequest, cpuSince, cpuSnapshot } from "./cpu.ts";
import { BENCH_CONTEXT } from "./requests.ts";

export interface RelayConfiguration {
  name: string;
  fastPath: boolean;
  gatherMs?: number;
}

export const RELAY_CONFIGURATIONS: RelayConfiguration[] = [
  { name: "claiming relay (before)", fastPath: false },
  { name: "fast path, gather 0 ms", fastPath: true, gatherMs: 0 },
  { name: "fast path, gather 2 ms (default)", fastPath: true, gatherMs: 2 },
  { name: "fast path, gather 4 ms", fastPath: true, gatherMs: 4 },
];

export interface RelayCostRow {
  configuration: string;
  rate: number;
  events: number;
  batch: number;
  cpuUsPerEvent: { process: number; postgres: number; nats: number; total: number };
}

async function measureOne(
  infra: { adminUrl: string; natsUrl: string },
  c: RelayConfiguration,
  rate: number,
  seconds: number,
): Promise<RelayCostRow> {
  const schema = "relaybench";
  const suffix = Math.random().toString(36).slice(2, 8).toUpperCase();
  const module = {
    schema,
    entities: [],
    migrations: kitEventMigrations,
  } as unknown as ServiceModule<unknown>;
  const tdb = await createTestDatabase(infra.adminUrl, [module]);
  const silent = createLogger({ service: "bench", level: "silent" });
  const stream = `RELAYBENCH_${suffix}`;
  const prefix = `rb${suffix.toLowerCase()}.events`;
  const nats = await connectNats(
    infra.natsUrl,
    "relay-bench",
    { stream, subjectPrefix: prefix, replicas: 1, maxAgeMs: 600_000, duplicateWindowMs: 120_000 },
    silent,
  );
  const db = createSqlPool(tdb.serviceUrl(schema), { max: 10 });
  const outbox = new Outbox({ schema, subjectPrefix: prefix });
  const metrics = createMetrics("relay-bench");
  const relay = outboxRelay({
    outbox,
    databaseUrl: tdb.serviceUrl(schema),
    nats,
    logger: silent,
    metrics,
    fastPath: c.fastPath,
    ...(c.gatherMs === undefined ? {} : { gatherMs: c.gatherMs }),
  });
  const write = (n: number) =>
    outbox.write(db, BENCH_CONTEXT, { text: "select 1", params: [], prepare: true }, [
      {
        type: "CATEGORY_CREATED",
        entityType: "CATEGORY",
        entityRef: `r${n}`,
        entityVersion: 1,
        entityCreated: new Date(),
      },
    ]);
  const backlog = async () =>
    Number(
      (await db.query<{ n: string }>({ text: `select count(*) as n from ${schema}.outbox`, params: [] }))[0]!
        .n,
    );
  const counters = async () => {
    const exposition = parsePrometheusText(await metrics.registry.metrics());
    const read = (name: string) => exposition.find(name).reduce((sum, x) => sum + x.value, 0);
    return {
      events: read("fop_outbox_published_events_total"),
      publishes: read("fop_outbox_publishes_total"),
    };
  };
  // This process (writer and relay, every thread), every Postgres backend, the NATS server.
  const probe: CpuProbe = {
    targets: { process: String(process.pid), postgres: "comm:postgres", nats: "comm:nats-server" },
  };
  try {
    await nats.ensureStream();
    await relay.start();
    for (let i = 0; i < 500; i++) await write(i);
    while ((await backlog()) > 0) await new Promise((r) => setTimeout(r, 20));
    const before = await counters();
    const cpu0 = cpuSnapshot(probe);
    const events = rate * seconds;
    const start = performance.now();
    const inFlight = new Set<Promise<unknown>>();
    for (let i = 0; i < events; i++) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
      const p = write(i).finally(() => inFlight.delete(p));
      inFlight.add(p);
      if (inFlight.size >= 50) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    while ((await backlog()) > 0) await new Promise((r) => setTimeout(r, 10));
    const spent = cpuSince(probe, cpu0);
    const after = await counters();
    const per = cpuPerRequest({ ...spent, total: spent.process! + spent.postgres! + spent.nats! }, events);
    return {
      configuration: c.name,
      rate,
      events,
      batch: (after.events - before.events) / Math.max(1, after.publishes - before.publishes),
      cpuUsPerEvent: { process: per.process!, postgres: per.postgres!, nats: per.nats!, total: per.total! },
    };
  } finally {
    await relay.stop();
    await db.end();
    await nats.jsm.streams.delete(stream).catch(() => {});
    await nats.close();
    await tdb.drop();
  }
}

/** Every configuration at every rate, configurations alternating within a rate; prints the table. */
export async function runRelayCost(
  infra: { adminUrl: string; natsUrl: string },
  opts: { rates: number[]; seconds: number; rounds: number },
  log: (msg: string) => void,
): Promise<RelayCostRow[]> {
  const rows: RelayCostRow[] = [];
  for (const rate of opts.rates) {
    const runs: RelayCostRow[][] = RELAY_CONFIGURATIONS.map(() => []);
    for (let round = 0; round < opts.rounds; round++) {
      for (const [i, c] of RELAY_CONFIGURATIONS.entries()) {
        const row = await measureOne(infra, c, rate, opts.seconds);
        log(`relay: ${c.name} at ${rate}/s, round ${round + 1}: ${row.cpuUsPerEvent.total} us per event`);
        runs[i]!.push(row);
      }
    }
    // The median run by total CPU per event.
    for (const r of runs) {
      const sorted = [...r].sort((a, b) => a.cpuUsPerEvent.total - b.cpuUsPerEvent.total);
      rows.push(sorted[Math.floor((sorted.length - 1) / 2)]!);
    }
  }
  const header = `${"configuration".padEnd(34)}  ${"events/s".padStart(8)}  ${"batch".padStart(5)}  ${"process".padStart(7)}  ${"postgres".padStart(8)}  ${"nats".padStart(5)}  ${"total".padStart(6)}`;
  console.log(`\nrelay: CPU us per event (medians of ${opts.rounds} run(s) of ${opts.seconds} s)\n`);
  console.log(header);
  console.log(header.replace(/[^ ]/g, "-"));
  for (const r of rows) {
    const u = r.cpuUsPerEvent;
    console.log(
      `${r.configuration.padEnd(34)}  ${String(r.rate).padStart(8)}  ${r.batch.toFixed(2).padStart(5)}  ${String(u.process).padStart(7)}  ${String(u.postgres).padStart(8)}  ${String(u.nats).padStart(5)}  ${String(u.total).padStart(6)}`,
    );
  }
  return rows;
}
