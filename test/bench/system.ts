/**
 * The system under benchmark: the same boot as the system tests (support/boot.ts) — a fresh
 * database, every service as a child process and the gateway (in this process, unless
 * `gatewayChildProcess`) on free ports, rate limiting off, logs silent — with the benchmark's pool
 * size. The ablation mode (ablation.ts) runs the gateway as a child process too, as deployed, with
 * its own environment per configuration.
 */
import { bootSystem, type System } from "../support/boot.ts";

export interface BenchSystem {
  baseUrl: string;
  /** Admin URL of its database (seeds write there). */
  databaseUrl: string;
  system: System;
  /** A token for `tenant` with the given roles (default ADMIN). */
  token(tenant: string, roles?: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchSystem(
  infra: { adminUrl: string; natsUrl: string },
  opts: {
    dbPoolMax: number;
    profileDir?: string | undefined;
    /** Options for every service's node (BENCH_NODE_ARGS). */
    nodeArgs?: readonly string[];
    /** The gateway as a child process (`gatewayProcess` of the system), with this environment. */
    gatewayChildProcess?: { env: Record<string, string> };
    /** Environment for every service on top of the benchmark's. */
    serviceEnv?: Record<string, string>;
  },
): Promise<BenchSystem> {
  const { profileDir } = opts;
  const system = await bootSystem(infra, {
    // As deployed: every service its own process (the gateway runs in this one).
    childProcesses: ["catalog", "audit", "picking", "loadunits", "carriers", "returns", "notifications"],
    // BENCH_NODE_ARGS (run.ts); --profile: each service writes its CPU profile when it exits.
    nodeArgs: (name) => [
      ...(opts.nodeArgs ?? []),
      ...(profileDir
        ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`]
        : []),
    ],
    serviceEnv: { DB_POOL_MAX: String(opts.dbPoolMax), LOG_LEVEL: "silent", ...opts.serviceEnv },
    ...(opts.gatewayChildProcess
      ? {
          gatewayChildProcess: true,
          gatewayEnv: opts.gatewayChildProcess.env,
          // Its log lines (the access log at info) would flood the terminal: they go to /dev/null.
          gatewayStdout: "ignore" as const,
        }
      : {}),
  });
  return {
    baseUrl: system.baseUrl,
    databaseUrl: system.db.url,
    system,
    token: (tenant, roles = ["ADMIN"]) => system.token(tenant, { roles, user: `${tenant}-bench` }),
    close: () => system.close(),
  };
}
