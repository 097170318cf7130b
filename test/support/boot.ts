/**
 * Boots the whole system (for one test file, or a benchmark): a fresh database, every service (real Postgres, real
 * NATS JetStream with a stream and subject prefix of its own), the gateway on a free port (or several
 * gateway processes behind an endpoints proxy), and a local token signer. Everything is driven over HTTP.
 * With `serviceReplicas`, every service runs as that many processes behind an endpoints proxy of its
 * own (a Deployment's pods behind its Service).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Interceptor } from "@connectrpc/connect";
import { auditService } from "@fop/audit";
import { carriersService } from "@fop/carriers";
import { catalogService } from "@fop/catalog";
import {
  createGateway,
  DEV_AUDIENCE,
  DEV_ISSUER,
  gatewayConfig,
  loadOrCreateDevKey,
  signDevToken,
} from "@fop/gateway";
import { loadConfig } from "@fop/kit/config";
import { freePort } from "@fop/kit/dev/infra";
import { createLogger } from "@fop/kit/logger";
import { PROCESS_NODE_ARGS } from "@fop/kit/process-args";
import { loadServiceConfig, type RunningService, type ServiceModule, startService } from "@fop/kit/service";
import { createTestDatabase, type TestDatabase } from "@fop/kit/testing/db";
import { TEST_RPC_AUTH_KEY } from "@fop/kit/testing/rpc";
import { loadUnitsService } from "@fop/loadunits";
import { notificationsService } from "@fop/notifications";
import { pickingService } from "@fop/picking";
import { returnsService } from "@fop/returns";
import { importJWK, SignJWT } from "jose";
import { type EndpointsProxy, startEndpointsProxy } from "./endpoints-proxy.ts";

export interface TokenOptions {
  roles?: string[];
  permissions?: string[];
  user?: string;
  expiresIn?: number;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

export const MODULES = {
  catalog: catalogService,
  audit: auditService,
  picking: pickingService,
  loadunits: loadUnitsService,
  carriers: carriersService,
  returns: returnsService,
  notifications: notificationsService,
} as unknown as Record<ServiceName, ServiceModule<unknown>>;
export type ServiceName =
  | "catalog"
  | "audit"
  | "picking"
  | "loadunits"
  | "carriers"
  | "returns"
  | "notifications";

/** Every service, in start order. */
export const SERVICE_NAMES = Object.keys(MODULES) as ServiceName[];

/** How a child process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One gateway child process (a pod of the gateway Deployment). */
export interface GatewayProcess {
  /** Its own address (http://127.0.0.1:port), not the proxy's. */
  url: string;
  pid: number | undefined;
  /** Settles once the process has exited. */
  exited: Promise<ProcessExit>;
  /** Sends `signal` (SIGTERM: the graceful shutdown; SIGKILL: the end of a grace period). */
  signal(signal: NodeJS.Signals): void;
}

/** One process of a service (with `serviceReplicas`: a pod of its Deployment). */
export interface ServiceReplica {
  /** Its current process (after restartReplica, the new one). */
  pid: number;
  /** Its own RPC address, not the balancer's. */
  rpcUrl: string;
  /** Its own admin address (/readyz, /metrics). */
  adminUrl: string;
}

/** With `gatewayReplicas`: the gateway processes and the proxy standing in for their Service. */
export interface GatewayReplicas {
  /** `baseUrl` is its address; its endpoints are the gateway processes taking requests. */
  proxy: EndpointsProxy;
  /** Gateway processes started and not yet exited, oldest first (in the proxy's endpoints or not). */
  readonly processes: readonly GatewayProcess[];
  /** Starts one more gateway process on a new port and waits for its /readyz 200; the caller adds it to the proxy. */
  start(): Promise<GatewayProcess>;
}

export interface System {
  /** Where requests go: the gateway, or with `gatewayReplicas` the proxy in front of the gateways. */
  baseUrl: string;
  db: TestDatabase;
  /** NATS URL, stream and subject prefix of this system. */
  events: { natsUrl: string; stream: string; subjectPrefix: string };
  token(tenant: string, opts?: TokenOptions): Promise<string>;
  /** Signs exactly `claims` (plus the development issuer and audience) with the gateway's key. */
  sign(claims: Record<string, unknown>): Promise<string>;
  /** Sends a request; `body` is JSON-encoded unless it is a string (sent as is). */
  api<T = any>(
    method: string,
    path: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  /** An API client bound to one token. */
  as(
    token: string,
  ): <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<ApiResponse<T>>;
  /**
   * Each service as the others reach it. With `serviceReplicas`: `rpcUrl` is its balancer's (the
   * address every client is given), `adminUrl` and `pid` are replica 0's (see `replicas`), and
   * `close` stops every replica.
   */
  services: Record<
    ServiceName,
    Pick<RunningService<unknown>, "rpcUrl" | "adminUrl" | "close"> &
      Partial<RunningService<unknown>> & {
        /** Process id, for services started as child processes. */
        pid?: number | undefined;
      }
  >;
  /** Stops one service (every replica of it; to test failure behaviour); close() tolerates it. */
  stopService(name: ServiceName): Promise<void>;
  /** SIGKILLs a service started as a child process, every replica of it (no graceful shutdown at all). */
  killService(name: ServiceName): void;
  /**
   * Sends `signal` to a service started as a child process, every replica of it (SIGSTOP/SIGCONT: a
   * stalled process).
   */
  signalService(name: ServiceName, signal: NodeJS.Signals): void;
  /**
   * Starts a stopped service (with `serviceReplicas`: its replicas that do not run) again on the same
   * ports; `env` on top of its environment for this start only (e.g. EVENT_CONSUMERS=off).
   */
  restartService(name: ServiceName, env?: Record<string, string>): Promise<void>;
  /**
   * The processes of a service, by index (with `serviceReplicas`: N of them; a service in
   * `childProcesses`: one). Throws for a service running in this process.
   */
  replicas(name: ServiceName): ServiceReplica[];
  /** SIGKILLs replica `index` of a service (its process id); its balancer keeps the endpoint. */
  killReplica(name: ServiceName, index: number): void;
  /** Sends `signal` to replica `index` of a service (SIGSTOP/SIGCONT: a stalled pod). */
  signalReplica(name: ServiceName, index: number, signal: NodeJS.Signals): void;
  /**
   * Starts replica `index` again on its ports (one that still runs is first stopped gracefully: SIGTERM,
   * then its exit) with `env` on top of its environment for this start only; resolves once its
   * /readyz answers 200. Its balancer endpoint stays as it was.
   */
  restartReplica(name: ServiceName, index: number, env?: Record<string, string>): Promise<void>;
  /**
   * Present with `gatewayChildProcess`: the gateway's process id, and a restart (stop, then start
   * on the same port with `env` added to its configuration from now on, ready when it resolves).
   */
  gatewayProcess?: { readonly pid: number | undefined; restart(env?: Record<string, string>): Promise<void> };
  /** Present with `gatewayReplicas`. */
  gateways?: GatewayReplicas | undefined;
  close(): Promise<void>;
}

export interface SystemOptions {
  /** Services to run as child processes (so a test can SIGKILL them) instead of in-process. */
  childProcesses?: ServiceName[];
  /**
   * Run every service as this many child processes (as `childProcesses` does one), each on its own
   * RPC and admin ports, behind a per-service endpoints proxy (endpoints-proxy.ts: a connection
   * balancer standing in for the service's Kubernetes Service) whose URL the gateway and the other
   * services are given. Each replica becomes an endpoint once its /readyz answers 200 and stays one
   * (killed or restarted). The replicas share a CURSOR_SECRET, a WEBHOOK_SECRETS_KEY
   * (notifications) and a CARRIER_CREDENTIALS_KEY (carriers) unless `serviceEnv` sets them, as a
   * Deployment's pods share a Secret. `childProcesses` is then moot.
   */
  serviceReplicas?: number;
  /** Run the gateway as a child process too, as deployed (spawnMain). */
  gatewayChildProcess?: boolean;
  /**
   * Run the gateway as this many child processes (as gatewayChildProcess) behind an endpoints proxy
   * (endpoints-proxy.ts), as a Deployment's replicas behind a Service: `baseUrl` is the proxy's and
   * `gateways` replaces processes (a rolling update).
   */
  gatewayReplicas?: number;
  /**
   * Gateway configuration (and, for a gateway child process, its environment: OTEL_* ...; there
   * its LOG_LEVEL is this one's, else TEST_LOG_LEVEL's, else warn).
   */
  gatewayEnv?: Record<string, string>;
  /** Interceptors of the in-process gateway's clients of the services (to record its calls). */
  gatewayRpcInterceptors?: Interceptor[];
  /** A gateway child process's stdout (its JSON log lines): shown (default), or discarded. */
  gatewayStdout?: "inherit" | "ignore";
  /** Environment for every service (e.g. OUTBOX_POLL_MS). */
  serviceEnv?: Record<string, string>;
  /** NATS to use (default: the suite's); a comma-separated list of servers is passed on as it is. */
  natsUrl?: string;
  /** Postgres to use: a superuser URL where the test database is created (default: the suite's). */
  postgresAdminUrl?: string;
  /** Extra Node options for services started as child processes (e.g. --cpu-prof). */
  nodeArgs?: (service: ServiceName) => string[];
}

/**
 * Boots the system against the given Postgres (admin URL) and NATS (unless `opts` names others);
 * tests use startSystem (system.ts). With `routeStatusDir`, the gateways record the statuses their
 * routes answer there (route-statuses.ts).
 */
export async function bootSystem(
  infra: { adminUrl: string; natsUrl: string; routeStatusDir?: string | undefined },
  opts: SystemOptions = {},
): Promise<System> {
  const logger = createLogger({ service: "test", level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const replicaCount = opts.serviceReplicas;
  if (replicaCount !== undefined && !(Number.isInteger(replicaCount) && replicaCount >= 1))
    throw new Error(`serviceReplicas must be a positive integer, not ${replicaCount}`);
  const db = await createTestDatabase(opts.postgresAdminUrl ?? infra.adminUrl, Object.values(MODULES));
  const suffix = randomBytes(5).toString("hex");
  const events = {
    natsUrl: opts.natsUrl ?? infra.natsUrl,
    stream: `T_${suffix.toUpperCase()}`,
    subjectPrefix: `t${suffix}.events`,
  };
  const configs = {} as Record<ServiceName, Record<string, string>>;
  const services = {} as System["services"];
  const children = new Map<ServiceName, ChildProcess>();
  const boot = async (name: ServiceName, env: Record<string, string> = {}) => {
    const mod = MODULES[name];
    if (!opts.childProcesses?.includes(name)) {
      services[name] = await startService(mod, loadServiceConfig(mod, { ...configs[name], ...env }), {
        logger,
      });
      return;
    }
    // Ports chosen here (not given, as loadunits' RPC port is) are chosen again when the process
    // exits before it is ready.
    const chooseRpc = configs[name].PORT === "0";
    const chooseAdmin = configs[name].ADMIN_PORT === "0";
    await readyOnFreePorts(async () => {
      if (chooseRpc) configs[name].PORT = String(await freePort());
      if (chooseAdmin) configs[name].ADMIN_PORT = String(await freePort());
      const adminUrl = `http://127.0.0.1:${configs[name].ADMIN_PORT}`;
      const child = spawnMain(
        `services/${name}/src/main.ts`,
        { ...configs[name], ...env },
        `${adminUrl}/readyz`,
        {
          nodeArgs: opts.nodeArgs?.(name),
          ports: [Number(configs[name].PORT), Number(configs[name].ADMIN_PORT)],
        },
      );
      children.set(name, child.process);
      services[name] = {
        pid: child.process.pid,
        rpcUrl: `http://127.0.0.1:${configs[name].PORT}`,
        adminUrl,
        close: child.close,
      };
      return child;
    }, chooseRpc || chooseAdmin);
  };

  // With serviceReplicas: per service, a balancer and N replica slots, each with its ports (kept
  // across restarts) and its current process.
  const replicaSets = new Map<ServiceName, ReplicaSet>();
  const replicaSet = (name: ServiceName): ReplicaSet => {
    const set = replicaSets.get(name);
    if (!set) throw new Error(`${name} does not run as replicas (serviceReplicas)`);
    return set;
  };
  const replicaSlot = (name: ServiceName, index: number): ReplicaSlot => {
    const slot = replicaSet(name).slots[index];
    if (!slot) throw new Error(`${name} has no replica ${index}`);
    return slot;
  };
  /**
   * Starts replica `index`: on its ports; the first time on ports chosen now, and chosen again when
   * the process exits before it is ready.
   */
  const startReplica = async (name: ServiceName, index: number, env: Record<string, string> = {}) => {
    const { proxy } = replicaSet(name);
    const slot = replicaSlot(name, index);
    const first = !slot.rpcPort;
    await readyOnFreePorts(async () => {
      if (first) {
        slot.rpcPort = String(await freePort());
        slot.adminPort = String(await freePort());
      }
      const child = spawnMain(
        `services/${name}/src/main.ts`,
        { ...configs[name], PORT: slot.rpcPort, ADMIN_PORT: slot.adminPort, ...env },
        `${slotUrls(slot).adminUrl}/readyz`,
        {
          nodeArgs: opts.nodeArgs?.(name),
          readyTimeoutMs: REPLICAS_READY_TIMEOUT_MS,
          ports: [Number(slot.rpcPort), Number(slot.adminPort)],
        },
      );
      slot.child = child;
      slot.ending = false;
      return child;
    }, first);
    // An endpoint from its first readiness on; a kill or restart leaves it in place.
    proxy.add(slotUrls(slot).rpcUrl);
  };
  /** Ends a replica's process (killed: awaits its exit; running: SIGTERM, then the exit). */
  const endReplica = async (slot: ReplicaSlot) => {
    const child = slot.child;
    if (!child) return;
    if (!slot.ending) {
      slot.ending = true;
      await child.close();
    }
    await child.exited;
  };
  const signalSlot = (slot: ReplicaSlot, signal: NodeJS.Signals) => {
    const child = slot.child?.process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    if (signal === "SIGKILL" || signal === "SIGTERM" || signal === "SIGINT") slot.ending = true;
    child.kill(signal);
  };
  const bootReplicas = async (name: ServiceName) => {
    const set = replicaSet(name);
    services[name] = {
      get pid() {
        return set.slots[0]!.child?.process.pid;
      },
      rpcUrl: set.proxy.url,
      get adminUrl() {
        return slotUrls(set.slots[0]!).adminUrl;
      },
      close: async () => {
        await Promise.all(set.slots.map(endReplica));
      },
    };
    await Promise.all(set.slots.map((_, i) => startReplica(name, i)));
  };
  if (replicaCount) {
    for (const name of Object.keys(MODULES) as ServiceName[]) {
      const slots = Array.from({ length: replicaCount }, () => ({
        rpcPort: "",
        adminPort: "",
        ending: false,
      }));
      replicaSets.set(name, { proxy: await startEndpointsProxy(), slots });
    }
  }
  /** The address a service's clients are given: its balancer's with replicas, else its own. */
  const rpcUrlOf = (name: ServiceName) => replicaSets.get(name)?.proxy.url ?? services[name].rpcUrl;

  // Picking asks loadunits (load unit assignment) and loadunits asks picking (unseen pick jobs): a
  // cycle of addresses, not of start-up (Connect clients connect on their first call). Loadunits
  // starts after picking on a port chosen now, so picking knows its URL from the start (with
  // replicas every balancer's address is known before any replica starts).
  const loadUnitsPort = String(await freePort());
  const sealKeys = {
    webhooks: randomBytes(32).toString("base64"),
    carriers: randomBytes(32).toString("base64"),
  };
  const loadUnitsUrl = replicaSets.get("loadunits")?.proxy.url ?? `http://127.0.0.1:${loadUnitsPort}`;
  for (const name of Object.keys(MODULES) as ServiceName[]) {
    configs[name] = {
      DATABASE_URL: db.serviceUrl(MODULES[name].schema),
      PORT: "0",
      ADMIN_PORT: "0",
      DB_POOL_MAX: "5",
      NATS_URL: events.natsUrl,
      EVENTS_STREAM: events.stream,
      EVENTS_SUBJECT_PREFIX: events.subjectPrefix,
      EVENTS_STREAM_MAX_AGE_HOURS: "1",
      EVENTS_ACK_WAIT_MS: "3000",
      RPC_AUTH_KEY: TEST_RPC_AUTH_KEY,
      // A developer's machine: the admin port's dead letters to this host's callers (an ADMIN_TOKEN
      // in serviceEnv takes over).
      ADMIN_LOOPBACK_TRUST: "true",
      // Replicas share their keys as a Deployment's pods share a Secret (deploy/k8s/base): a page's
      // cursor is good on any of them, and what one sealed (a webhook signing secret, carrier
      // credentials) the others open.
      ...(replicaCount ? { CURSOR_SECRET: `replicas-${suffix}` } : {}),
      ...(replicaCount && name === "notifications" ? { WEBHOOK_SECRETS_KEY: sealKeys.webhooks } : {}),
      ...(replicaCount && name === "carriers" ? { CARRIER_CREDENTIALS_KEY: sealKeys.carriers } : {}),
      // The facility registry picking, returns, notifications and loadunits (stacks) validate against.
      ...(name === "picking" || name === "returns" || name === "notifications" || name === "loadunits"
        ? { CATALOG_URL: rpcUrlOf("catalog") }
        : {}),
      // Webhooks to local receivers (plain http, loopback) and retries fast enough for a test.
      ...(name === "notifications"
        ? {
            WEBHOOK_ALLOW_HTTP: "true",
            WEBHOOK_ALLOWED_CIDRS: "127.0.0.0/8,::1/128",
            WEBHOOK_TIMEOUT_MS: "2000",
            DELIVERY_MAX_ATTEMPTS: "5",
            DELIVERY_RETRY_BASE_MS: "200",
            DELIVERY_POLL_MS: "50",
            LIVE_HEARTBEAT_MS: "1000",
          }
        : {}),
      // Pick jobs the load units' projection has not seen yet.
      ...(name === "loadunits" ? { PICKING_URL: rpcUrlOf("picking"), PORT: loadUnitsPort } : {}),
      // Whether a pick job has a load unit, when the tenant's configuration requires one.
      ...(name === "picking" ? { LOADUNITS_URL: loadUnitsUrl } : {}),
      // The carrier registry a return parcel's carrierRef is checked against.
      ...(name === "returns" ? { CARRIERS_URL: rpcUrlOf("carriers") } : {}),
      ...opts.serviceEnv,
    };
    if (replicaCount) continue; // all at once below
    await boot(name);
    // Restarts reuse the ports the gateway knows.
    configs[name].PORT = new URL(services[name].rpcUrl).port;
    configs[name].ADMIN_PORT = new URL(services[name].adminUrl).port;
  }
  if (replicaCount) {
    // Every address is known: all replicas start at once (a client reaching a balancer before any
    // of its replicas is ready is refused and tries again, as behind a Service).
    const booted = await Promise.allSettled((Object.keys(MODULES) as ServiceName[]).map(bootReplicas));
    const failed = booted.find((r) => r.status === "rejected");
    if (failed) {
      for (const set of replicaSets.values()) {
        await Promise.all(set.slots.map(endReplica));
        await set.proxy.close();
      }
      await db.drop().catch(() => {});
      throw failed.reason;
    }
  }
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), "fop-test-")), "key.json");
  const gatewayVars: Record<string, string> = {
    PORT: "0",
    CATALOG_URL: services.catalog.rpcUrl,
    AUDIT_URL: services.audit.rpcUrl,
    PICKING_URL: services.picking.rpcUrl,
    LOADUNITS_URL: services.loadunits.rpcUrl,
    CARRIERS_URL: services.carriers.rpcUrl,
    RETURNS_URL: services.returns.rpcUrl,
    NOTIFICATIONS_URL: services.notifications.rpcUrl,
    AUTH_DEV_KEY_FILE: keyFile,
    RPC_AUTH_KEY: TEST_RPC_AUTH_KEY,
    RATE_LIMIT_ENABLED: "false",
    // With the rate limit on, its gateways exchange their counts on this system's NATS, on a subject of its own.
    NATS_URL: events.natsUrl,
    RATE_LIMIT_SYNC_SUBJECT: `t${suffix}.rate-limit`,
    // One file per system; the gateway processes of one system append whole lines to it.
    ...(infra.routeStatusDir
      ? { RECORD_ROUTE_STATUSES_FILE: path.join(infra.routeStatusDir, `${suffix}.log`) }
      : {}),
    ...opts.gatewayEnv,
  };
  let baseUrl: string;
  let closeGateway: () => Promise<void>;
  let gateways: GatewayReplicas | undefined;
  let gatewayProcess: System["gatewayProcess"];
  /** How a gateway child process is started (its LOG_LEVEL: the caller's, else as the services'). */
  const gatewayChild = { logLevel: opts.gatewayEnv?.LOG_LEVEL, stdout: opts.gatewayStdout };
  if (opts.gatewayReplicas) {
    const proxy = await startEndpointsProxy();
    // Running gateway processes (oldest first) and how to stop each.
    const running = new Map<GatewayProcess, () => Promise<void>>();
    /** Starts a gateway process on a free port (another one when it exits before it is ready). */
    const start = async (): Promise<GatewayProcess> => {
      let gateway: GatewayProcess | undefined;
      await readyOnFreePorts(async () => {
        const port = String(await freePort());
        const url = `http://127.0.0.1:${port}`;
        const child = spawnMain("gateway/src/main.ts", { ...gatewayVars, PORT: port }, `${url}/readyz`, {
          ...gatewayChild,
          ports: [Number(port)],
        });
        const started: GatewayProcess = {
          url,
          pid: child.process.pid,
          exited: child.exited,
          signal: (signal) => {
            if (child.process.exitCode === null && child.process.signalCode === null)
              child.process.kill(signal);
          },
        };
        gateway = started;
        running.set(started, child.close);
        void child.exited.then(() => running.delete(started));
        return child;
      });
      return gateway!;
    };
    for (const gateway of await Promise.all(Array.from({ length: opts.gatewayReplicas }, start)))
      proxy.add(gateway.url);
    gateways = {
      proxy,
      get processes() {
        return [...running.keys()];
      },
      start,
    };
    baseUrl = proxy.url;
    closeGateway = async () => {
      await proxy.close();
      await Promise.all([...running.values()].map((close) => close()));
    };
  } else if (opts.gatewayChildProcess) {
    gatewayVars.PORT = String(await freePort());
    const url = `http://127.0.0.1:${gatewayVars.PORT}`;
    baseUrl = url;
    const start = async () => {
      const child = spawnMain("gateway/src/main.ts", gatewayVars, `${url}/readyz`, {
        ...gatewayChild,
        logLevel: gatewayVars.LOG_LEVEL,
        ports: [Number(gatewayVars.PORT)],
      });
      closeGateway = child.close;
      pid = child.process.pid;
      await child.ready;
    };
    let pid: number | undefined;
    await start();
    gatewayProcess = {
      get pid() {
        return pid;
      },
      restart: async (env = {}) => {
        await closeGateway();
        Object.assign(gatewayVars, env);
        await start();
      },
    };
  } else {
    const gateway = await createGateway(loadConfig(gatewayConfig, gatewayVars), {
      logger,
      ...(opts.gatewayRpcInterceptors ? { rpcInterceptors: opts.gatewayRpcInterceptors } : {}),
    });
    await gateway.listen({ host: "127.0.0.1", port: 0 });
    const address = gateway.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    closeGateway = () => gateway.close();
  }

  const api: System["api"] = async (method, p, o = {}) => {
    const headers: Record<string, string> = { accept: "application/json", ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    // A 303 (e.g. a reason that exists) is the answer itself, not a redirect to follow.
    const res = await fetch(`${baseUrl}${p}`, { method, headers, body, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as never, text };
  };

  const system: System = {
    baseUrl,
    db,
    events,
    token: (tenant, t = {}) =>
      signDevToken(keyFile, {
        tenant,
        sub: t.user ?? `${tenant}-user`,
        username: t.user ?? `${tenant}-user`,
        roles: t.roles ?? (t.permissions ? [] : ["ADMIN"]),
        permissions: t.permissions ?? [],
        expiresIn: t.expiresIn,
      }),
    sign: async (claims) => {
      const key = await loadOrCreateDevKey(keyFile);
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: key.privateJwk.kid!, typ: "JWT" })
        .setIssuer(DEV_ISSUER)
        .setAudience(DEV_AUDIENCE)
        .sign(await importJWK(key.privateJwk, "ES256"));
    },
    api,
    as: (token) => (method, p, body, headers) => api(method, p, { token, body, headers }),
    services,
    stopService: (name) => services[name].close(),
    killService: (name) => {
      const set = replicaSets.get(name);
      if (set) {
        for (const slot of set.slots) signalSlot(slot, "SIGKILL");
        return;
      }
      const child = children.get(name);
      if (!child) throw new Error(`${name} does not run as a child process`);
      child.kill("SIGKILL");
    },
    signalService: (name, signal) => {
      const set = replicaSets.get(name);
      if (set) {
        for (const slot of set.slots) signalSlot(slot, signal);
        return;
      }
      const child = children.get(name);
      if (!child) throw new Error(`${name} does not run as a child process`);
      child.kill(signal);
    },
    restartService: async (name, env) => {
      const set = replicaSets.get(name);
      if (!set) return boot(name, env);
      // The replicas that were stopped or killed; a running one is left alone.
      await Promise.all(
        set.slots.map(async (slot, i) => {
          const child = slot.child?.process;
          const exited = !child || child.exitCode !== null || child.signalCode !== null;
          if (!exited && !slot.ending) return;
          await endReplica(slot);
          await startReplica(name, i, env);
        }),
      );
    },
    replicas: (name) => {
      const set = replicaSets.get(name);
      if (set) return set.slots.map((slot) => ({ pid: slot.child!.process.pid!, ...slotUrls(slot) }));
      const child = children.get(name);
      if (!child) throw new Error(`${name} does not run as a child process`);
      const { rpcUrl, adminUrl } = services[name];
      return [{ pid: child.pid!, rpcUrl, adminUrl }];
    },
    killReplica: (name, index) => {
      if (!replicaSets.has(name) && index === 0) return system.killService(name);
      signalSlot(replicaSlot(name, index), "SIGKILL");
    },
    signalReplica: (name, index, signal) => {
      if (!replicaSets.has(name) && index === 0) return system.signalService(name, signal);
      signalSlot(replicaSlot(name, index), signal);
    },
    restartReplica: async (name, index, env) => {
      if (!replicaSets.has(name) && index === 0) {
        await services[name].close(); // after a kill: waits for the exit
        return boot(name, env);
      }
      const slot = replicaSlot(name, index);
      await endReplica(slot);
      await startReplica(name, index, env);
    },
    gateways,
    gatewayProcess,
    close: async () => {
      await closeGateway();
      for (const name of Object.keys(services) as ServiceName[]) await services[name].close();
      for (const set of replicaSets.values()) await set.proxy.close();
      const { connect } = await import("@nats-io/transport-node");
      const { jetstreamManager } = await import("@nats-io/jetstream");
      const nc = await connect({ servers: events.natsUrl.split(","), maxReconnectAttempts: 0 }).catch(
        () => undefined,
      );
      if (nc) {
        await (await jetstreamManager(nc)).streams.delete(events.stream).catch(() => {});
        await nc.close();
      }
      await db.drop();
    },
  };
  return system;
}

/** A replicated service: its balancer (endpoints proxy) and its replicas. */
interface ReplicaSet {
  proxy: EndpointsProxy;
  slots: ReplicaSlot[];
}

/** One replica: its ports (chosen at its first start, then for good) and its current process. */
interface ReplicaSlot {
  /** "" until its first start. */
  rpcPort: string;
  adminPort: string;
  child?: ReturnType<typeof spawnMain>;
  /** Sent SIGKILL/SIGTERM (or being closed): it is exiting or has exited. */
  ending: boolean;
}

const slotUrls = (slot: ReplicaSlot) => ({
  rpcUrl: `http://127.0.0.1:${slot.rpcPort}`,
  adminUrl: `http://127.0.0.1:${slot.adminPort}`,
});

type SpawnedMain = ReturnType<typeof spawnMain>;

/**
 * Waits until the process `spawn` starts is ready. When it exits before that and `retry` holds,
 * `spawn` runs again (3 tries in all), choosing new ports: another process may have taken one
 * between freePort and its listen (an outgoing connection of a process starting beside it, or
 * another system's boot whose freePort handed out the same port). A process that is still running
 * when `ready` fails (a timeout) is not retried.
 */
async function readyOnFreePorts(spawn: () => Promise<SpawnedMain>, retry = true): Promise<SpawnedMain> {
  for (let attempt = 1; ; attempt++) {
    const child = await spawn();
    try {
      await child.ready;
      return child;
    } catch (err) {
      const exited = child.process.exitCode !== null || child.process.signalCode !== null;
      await child.close();
      if (!retry || !exited || attempt === 3) throw err;
    }
  }
}

/** Replicas start all at once: N x 7 processes loading their modules on a few cores. */
const REPLICAS_READY_TIMEOUT_MS = 120_000;

/**
 * Starts `main` (relative to the repository) as a service is deployed (`node <PROCESS_NODE_ARGS>
 * <main>`) with `env` on top of this process's environment; `ready` settles once
 * `readyUrl` answers 2xx and the process listens on `ports` (and fails if the process exits first);
 * `exited` once the process has exited. `close` sends SIGTERM (graceful shutdown, which flushes its
 * spans) and waits for the exit.
 */
function spawnMain(
  main: string,
  env: Record<string, string>,
  readyUrl: string,
  opts: {
    nodeArgs?: string[] | undefined;
    /** Its LOG_LEVEL (default: TEST_LOG_LEVEL, else warn). */
    logLevel?: string | undefined;
    /** Its stdout: shown (default) or discarded. */
    stdout?: "inherit" | "ignore" | undefined;
    /** How long `ready` waits for `readyUrl` (default 30 s). */
    readyTimeoutMs?: number | undefined;
    /**
     * Ports it must be the one listening on before it counts as ready: a port freePort handed out
     * may have gone to another process too (another system booting beside this one), whose
     * /readyz would answer for it.
     */
    ports?: number[] | undefined;
  } = {},
): {
  process: ChildProcess;
  ready: Promise<void>;
  exited: Promise<ProcessExit>;
  close: () => Promise<void>;
} {
  const child = spawn(
    process.execPath,
    // The caller's options after the platform's, so that they win where both set one (a V8 flag).
    [...PROCESS_NODE_ARGS, ...(opts.nodeArgs ?? []), path.join(REPO_ROOT, main)],
    {
      env: { ...process.env, ...env, LOG_LEVEL: opts.logLevel ?? process.env.TEST_LOG_LEVEL ?? "warn" },
      stdio: ["ignore", opts.stdout ?? "inherit", "inherit"],
    },
  );
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const ready = (async () => {
    for (let i = 0; i < (opts.readyTimeoutMs ?? 30_000) / 100; i++) {
      const answered = await fetch(readyUrl).then(
        (r) => r.ok,
        () => false,
      );
      if (child.exitCode !== null) throw new Error(`${main} exited with ${child.exitCode}`);
      if (answered && (opts.ports ?? []).every((port) => listensOn(child.pid!, port) ?? true)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${main} did not become ready`);
  })();
  return {
    process: child,
    ready,
    exited,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGCONT"); // a stopped process would not see the SIGTERM
        child.kill("SIGTERM");
      }
      await exited;
    },
  };
}

/**
 * Whether process `pid` holds a listening TCP socket on `port` (Linux: /proc/net/tcp and tcp6, and
 * the process's file descriptors); undefined where /proc does not say (another system).
 */
function listensOn(pid: number, port: number): boolean | undefined {
  const local = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  const inodes = new Set<string>();
  try {
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"])
      for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
        // sl local_address rem_address st ... inode; st 0A is LISTEN.
        const f = line.trim().split(/\s+/);
        if (f[1]?.endsWith(local) && f[3] === "0A" && f[9]) inodes.add(`socket:[${f[9]}]`);
      }
  } catch {
    return undefined;
  }
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        return false; // closed meanwhile
      }
    });
  } catch {
    return false; // gone
  }
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
