/**
 * `npm run bench -- --rpc-retention` (or BENCH_RPC_RETENTION=1): what one RPC call leaves to the
 * young-generation GC of the process that makes it (issue 26: the gateway's scavenges make the
 * GETs' p99, see the bench README's "What a call leaves to the scavenger").
 *
 * A scavenge stops the process for as long as it takes to copy what is still reachable in the young
 * generation; the bytes a call leaves reachable past its end are what makes a scavenge long. These
 * are counted with V8's GC statistics (`v8.GCProfiler`), which the machine's speed does not move,
 * unlike a p99: so a change to the client path shows here as bytes per call, in one run, on a busy
 * machine.
 *
 * A kit RPC server (rpc-retention-server.ts) runs as a child process; this process makes
 * `calls` GetCategory calls, `concurrency` at a time, in each of {@link RETENTION_CLIENTS}:
 * - `node:http2`: one stream per call, the same headers and body, read whole: what Node's HTTP/2
 *   client leaves by itself;
 * - `kit transport`: the kit's transport (connect-h2-transport.ts) under Connect's promise client,
 *   with the bearer token;
 * - `kit client`: createRpcClient as the gateway uses it (client span, deadline, bearer token),
 *   with this process's tracing (a real tracer provider, exporting nowhere).
 * The clients alternate, `rounds` times; each is warmed up first. Per call: the young-generation
 * bytes allocated, those that survived a scavenge (copied within the young generation or promoted)
 * and those promoted; and the scavenges' count and mean pause. What a round allocated before its
 * first GC is not counted, so a round needs several scavenges (20,000 calls make 7-15 here).
 */
import { fork } from "node:child_process";
import http2 from "node:http2";
import { GCProfiler, type GCProfilerResult } from "node:v8";
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { bearerInterceptor, componentCredentials, rpcKeys } from "@fop/kit/rpc/auth";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import { createH2Transport } from "@fop/kit/rpc/connect-h2-transport";
import { CatalogService, GetCategoryRequestSchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { median, textTable } from "./report.ts";
import { BENCH_CONTEXT } from "./requests.ts";

/** The key the server checks tokens with (bench only). */
export const RETENTION_AUTH_KEY = "bench-only-rpc-retention-key-0123456789abcdef";

export const RETENTION_CLIENTS = ["node:http2", "kit transport", "kit client"] as const;
export type RetentionClient = (typeof RETENTION_CLIENTS)[number];

type GCStatistics = GCProfilerResult["statistics"][number];

export interface RetentionRow {
  client: RetentionClient;
  calls: number;
  callsPerSecond: number;
  scavenges: number;
  meanPauseMs: number;
  /** Young-generation bytes per call: allocated, survived a scavenge (copied or promoted), promoted. */
  allocated: number;
  survived: number;
  promoted: number;
}

const used = (s: GCStatistics["beforeGC"], space: string): number =>
  s.heapSpaceStatistics.find((h) => h.spaceName === space)?.spaceUsedSize ?? 0;

/**
 * Per call, from the statistics of every GC during `calls` calls: a scavenge's survivors are what
 * the young generation holds after it plus what it promoted (the old generation's growth across
 * it); what was allocated is what the young generation held before it, less what the previous GC
 * left there. Large young objects (new_large_object_space) count as young.
 */
export function summariseScavenges(
  stats: GCStatistics[],
  calls: number,
): Pick<RetentionRow, "scavenges" | "meanPauseMs" | "allocated" | "survived" | "promoted"> {
  const young = (s: GCStatistics["beforeGC"]) => used(s, "new_space") + used(s, "new_large_object_space");
  let allocated = 0;
  let survived = 0;
  let promoted = 0;
  let pauseUs = 0;
  let scavenges = 0;
  let leftYoung: number | undefined;
  for (const gc of stats) {
    if (leftYoung !== undefined) allocated += Math.max(0, young(gc.beforeGC) - leftYoung);
    leftYoung = young(gc.afterGC);
    if (gc.gcType !== "Scavenge") continue;
    scavenges++;
    pauseUs += gc.cost;
    const grew = Math.max(0, used(gc.afterGC, "old_space") - used(gc.beforeGC, "old_space"));
    promoted += grew;
    survived += young(gc.afterGC) + grew;
  }
  return {
    scavenges,
    meanPauseMs: scavenges ? pauseUs / scavenges / 1000 : 0,
    allocated: allocated / calls,
    survived: survived / calls,
    promoted: promoted / calls,
  };
}

type Call = () => Promise<unknown>;

/** The three clients' calls against `baseUrl` (and a close for each). */
async function clients(
  baseUrl: string,
): Promise<{ calls: Record<RetentionClient, Call>; close: () => void }> {
  const credentials = componentCredentials(rpcKeys({ RPC_AUTH_KEY: RETENTION_AUTH_KEY }), "bench");
  const token = await credentials();
  const options = callOptions(BENCH_CONTEXT);
  const request = { id: "00000000-0000-4000-8000-000000000001" };

  const session = http2.connect(baseUrl);
  const headers = {
    ":method": "POST",
    ":path": `/${CatalogService.typeName}/${CatalogService.method.getCategory.name}`,
    "content-type": "application/proto",
    "connect-protocol-version": "1",
    authorization: `Bearer ${token}`,
    ...Object.fromEntries(new Headers(options.headers).entries()),
  };
  const body = toBinary(GetCategoryRequestSchema, create(GetCategoryRequestSchema, request));
  const raw: Call = () =>
    new Promise((resolve, reject) => {
      const stream = session.request(headers);
      const chunks: Buffer[] = [];
      let status = 0;
      stream.on("response", (h) => (status = Number(h[":status"])));
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", reject);
      stream.on("close", () =>
        status === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`HTTP ${status}`)),
      );
      stream.end(body);
    });

  const transport = createClient(
    CatalogService,
    createH2Transport({ baseUrl, interceptors: [bearerInterceptor(credentials)], defaultTimeoutMs: 10_000 }),
  );
  const kit = createRpcClient(CatalogService, baseUrl, credentials);
  return {
    calls: {
      "node:http2": raw,
      "kit transport": () => transport.getCategory(request, options),
      "kit client": () => kit.getCategory(request, options),
    },
    close: () => session.close(),
  };
}

async function drive(call: Call, calls: number, concurrency: number): Promise<void> {
  let left = calls;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await call();
    }),
  );
}

export interface RetentionOptions {
  calls: number;
  concurrency: number;
  rounds: number;
}

export async function runRpcRetention(
  opts: RetentionOptions,
  log: (msg: string) => void,
): Promise<RetentionRow[]> {
  const server = fork(new URL("./rpc-retention-server.ts", import.meta.url), {
    execArgv: ["--conditions=source"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once("message", (m) => resolve(m as number));
      server.once("exit", (code) => reject(new Error(`the RPC server exited with ${code}`)));
    });
    const { calls, close } = await clients(`http://127.0.0.1:${port}`);
    try {
      for (const client of RETENTION_CLIENTS)
        await drive(calls[client], Math.min(2000, opts.calls), opts.concurrency);
      const rows: RetentionRow[] = [];
      for (let round = 1; round <= opts.rounds; round++) {
        for (const client of RETENTION_CLIENTS) {
          const profiler = new GCProfiler();
          const start = performance.now();
          profiler.start();
          await drive(calls[client], opts.calls, opts.concurrency);
          const { statistics } = profiler.stop();
          const seconds = (performance.now() - start) / 1000;
          const row = {
            client,
            calls: opts.calls,
            callsPerSecond: opts.calls / seconds,
            ...summariseScavenges(statistics, opts.calls),
          };
          rows.push(row);
          log(`rpc-retention: round ${round}/${opts.rounds} ${describeRetention(row)}`);
        }
      }
      return rows;
    } finally {
      close();
    }
  } finally {
    server.kill();
  }
}

export const describeRetention = (r: RetentionRow): string =>
  `${r.client}: ${Math.round(r.callsPerSecond)} calls/s, ${r.scavenges} scavenges (mean ${r.meanPauseMs.toFixed(1)} ms), per call ${Math.round(r.allocated)} B allocated, ${Math.round(r.survived)} B survived, ${Math.round(r.promoted)} B promoted`;

/** The table of the README: per client, the median of its rounds. */
export function formatRetention(rows: RetentionRow[]): string {
  const header = [
    "client",
    "calls/s",
    "scavenges",
    "pause ms",
    "scavenging us/call",
    "allocated B/call",
    "survived B/call",
    "promoted B/call",
  ];
  const lines = RETENTION_CLIENTS.flatMap((client) => {
    const of = rows.filter((r) => r.client === client);
    if (of.length === 0) return [];
    const m = (f: (r: RetentionRow) => number, digits = 0) => median(of.map(f)).toFixed(digits);
    return [
      [
        client,
        m((r) => r.callsPerSecond),
        m((r) => r.scavenges),
        m((r) => r.meanPauseMs, 1),
        m((r) => (r.meanPauseMs * r.scavenges * 1000) / r.calls, 1),
        m((r) => r.allocated),
        m((r) => r.survived),
        m((r) => r.promoted),
      ],
    ];
  });
  return textTable(header, lines, [0]).join("\n");
}
