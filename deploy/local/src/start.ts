/**
 * `npm start`: the whole platform on this machine, by the rules of DESIGN.md "Running".
 * Postgres: DATABASE_URL, else 127.0.0.1:5432, else embedded (data in .data/postgres).
 * NATS: NATS_URL, else 127.0.0.1:4222, else nats-server -js on PATH, else a clear error.
 * Mail: SMTP_URL, else a local capture server (SMTP on 2525, the mails listed at
 * http://127.0.0.1:8025), so the notification e-mails can be seen.
 * Then migrations, every service, the gateway on PORT (8080). Ctrl-C stops everything.
 *
 * The production topology on this machine (README "Run the production topology locally"), the
 * same code and configuration variables as in Kubernetes:
 *  --replicas N    N gateways and N replicas of every service, each set behind balancers on the
 *                  ports one process has without the flag (PORT; each module's `ports`, as
 *                  a Service has both): TCP proxies (@fop/kit/dev/endpoints-proxy) that, like
 *                  kube-proxy, send each *connection* to the next ready replica, round robin. Each
 *                  replica listens on free ports of its own (its admin port is the pod's, where
 *                  its readiness is checked) and becomes an endpoint once its /readyz is 200.
 *                  Default 1: no balancers, every process on its known ports, as without the flag.
 *  --nats-cluster  three clustered nats-servers with JetStream (kit startNatsCluster; stores under
 *                  .data/nats-cluster; client ports 4222-4224 when all are free, else free ones);
 *                  every service gets all three URLs in NATS_URL and EVENTS_STREAM_REPLICAS=3, as
 *                  deploy/k8s/components/nats-cluster sets it.
 *  --free-ports    every port the launcher would choose (balancers or processes, PORT unless set,
 *                  the mail capture's) is a free one instead, printed in the table: a second
 *                  platform beside a developer's own `npm start` (test/system/ops/start-topology).
 *  --data-dir DIR  what the launcher keeps (secrets, embedded Postgres, NATS stores) in DIR instead
 *                  of .data (the gateway's token key stays where AUTH_DEV_KEY_FILE says).
 * A process that exits stops everything (nothing is restarted here).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { loadConfig } from "@fop/kit/config";
import { serviceDatabaseUrl } from "@fop/kit/db/orm";
import { type EndpointsProxy, startEndpointsProxy } from "@fop/kit/dev/endpoints-proxy";
import {
  findOrStartNats,
  findOrStartPostgres,
  freePort,
  type Handle,
  infraConfig,
  portFree,
  startNatsCluster,
} from "@fop/kit/dev/infra";
import { PROCESS_NODE_ARGS } from "@fop/kit/process-args";
import { startMailCapture } from "@fop/notifications/dev/mail-capture";
import { setupDatabase } from "./db-setup.ts";
import { GATEWAY_MAIN, REPO_ROOT, SERVICES } from "./services.ts";

const USAGE =
  "usage: npm start [-- [--replicas N] [--nats-cluster] [--free-ports] [--data-dir DIR]]  (deploy/local/src/start.ts)";
let flags: { replicas: number; natsCluster: boolean; freePorts: boolean; dataDir?: string };
try {
  const { values } = parseArgs({
    options: {
      replicas: { type: "string", default: "1" },
      "nats-cluster": { type: "boolean", default: false },
      "free-ports": { type: "boolean", default: false },
      "data-dir": { type: "string" },
    },
  });
  const replicas = Number(values.replicas);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 10)
    throw new Error(`--replicas takes a whole number from 1 to 10, not "${values.replicas}"`);
  flags = {
    replicas,
    natsCluster: values["nats-cluster"],
    freePorts: values["free-ports"],
    dataDir: values["data-dir"],
  };
} catch (err) {
  console.error(`${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}

// npm runs this in deploy/local: a relative --data-dir is relative to where npm was called.
const DATA = flags.dataDir
  ? path.resolve(process.env.INIT_CWD ?? process.cwd(), flags.dataDir)
  : path.join(REPO_ROOT, ".data");
const log = (msg: string) => console.log(`\x1b[36m[start]\x1b[0m ${msg}`);
const children: { name: string; proc: ChildProcess }[] = [];
const infra: Handle[] = [];
let stopping = false;

/** Starts one process; `service` is its OTEL_SERVICE_NAME (every replica's the same, as in Kubernetes). */
function run(name: string, main: string, env: Record<string, string>, service = name): ChildProcess {
  const proc = spawn(process.execPath, [...PROCESS_NODE_ARGS, main], {
    cwd: REPO_ROOT,
    env: { ...process.env, OTEL_SERVICE_NAME: service, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    createInterface({ input: stream! }).on("line", (line) => console.log(`\x1b[35m[${name}]\x1b[0m ${line}`));
  }
  proc.once("exit", (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push({ name, proc });
  return proc;
}

/**
 * A secret kept in .data so what it protects outlives a restart (created on first use): the
 * services' cursor secret, the key sealing webhook secrets, the RPC key (`npm run rpc-token` reads it).
 */
function persistedSecret(name: string, encoding: "base64url" | "base64"): string {
  const file = path.join(DATA, name);
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(DATA, { recursive: true });
    const secret = randomBytes(32).toString(encoding);
    writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

/** The local mail capture: SMTP on 2525, the mails (newest first) as JSON at http://127.0.0.1:8025. */
async function startLocalMail(): Promise<string> {
  const capture = await startMailCapture({
    port: Number(process.env.MAIL_CAPTURE_SMTP_PORT ?? (flags.freePorts ? 0 : 2525)),
  });
  const web = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify({ mails: [...capture.mails].reverse() }, null, 2));
  });
  await new Promise<void>((resolve) =>
    web.listen(Number(process.env.MAIL_CAPTURE_WEB_PORT ?? (flags.freePorts ? 0 : 8025)), "127.0.0.1", () =>
      resolve(),
    ),
  );
  const webPort = (web.address() as AddressInfo).port;
  infra.push({
    source: "mail capture",
    url: capture.url,
    stop: async () => {
      web.close();
      await capture.close();
    },
  });
  log(`mail: ${capture.url} (captured mails: http://127.0.0.1:${webPort})`);
  return capture.url;
}

async function waitReady(
  name: string,
  url: string,
  // Several replicas of everything share the machine's cores while they start.
  timeoutMs = 90_000 * Math.ceil(flags.replicas / 2),
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (stopping) return;
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name} did not become ready at ${url} within ${timeoutMs / 1000}s`);
}

async function stop(code: number): Promise<never> {
  stopping = true;
  await Promise.all(
    children.map(
      ({ proc }) =>
        new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once("exit", () => resolve());
          proc.kill("SIGTERM");
          setTimeout(() => proc.kill("SIGKILL"), 10_000).unref();
        }),
    ),
  );
  for (const h of infra.reverse()) await h.stop().catch(() => {});
  process.exit(code);
}

process.once("SIGINT", () => {
  log("stopping…");
  void stop(0);
});
process.once("SIGTERM", () => void stop(0));
// A closed terminal: stop as on Ctrl-C (NATS cluster servers run in a process group of their own).
process.once("SIGHUP", () => void stop(0));

/** Ports handed out in this run (freePort may hand out the same one twice). */
const taken = new Set<number>();
async function newPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}
/** A process's or balancer's known port; with --free-ports a free one. */
const knownPort = (port: number): Promise<number> => (flags.freePorts ? newPort() : Promise.resolve(port));

/** A balancer on `port` (a Service's); no endpoints until a replica is ready. */
async function balancer(port: number): Promise<EndpointsProxy> {
  const proxy = await startEndpointsProxy([], { port }).catch((err: Error) => {
    throw new Error(`cannot listen on 127.0.0.1:${port} (${err.message}): is another npm start running?`);
  });
  infra.push({ source: `balancer ${proxy.url}`, url: proxy.url, stop: () => proxy.close() });
  return proxy;
}

const NATS_CLUSTER_SIZE = 3;

/** --nats-cluster: three servers, on 4222-4224 when those are free. */
async function startLocalNatsCluster() {
  const preferred = [4222, 4223, 4224];
  const usePreferred =
    !flags.freePorts && (await Promise.all(preferred.map((p) => portFree(p)))).every(Boolean);
  return startNatsCluster({
    dataDir: path.join(DATA, "nats-cluster"),
    size: NATS_CLUSTER_SIZE,
    log,
    clientPorts: usePreferred ? preferred : undefined,
  });
}

/** One process of the topology, for the table. */
interface Replica {
  name: string;
  where: string;
  proc: ChildProcess;
  /** Its own readiness URL (the pod's port). */
  readyz: string;
  /** What the balancers send connections to once it is ready. */
  endpoints: { proxy: EndpointsProxy; url: string }[];
}
/** A Deployment of the table: the address its Service has, and its replicas. */
const deployments: { name: string; front: string; replicas: Replica[] }[] = [];

function printTable(natsRows: string[], pgSource: string): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  const lines = [
    flags.replicas > 1
      ? `what runs where: beside each name its Service's address, a balancer sending each connection to the next ready replica (round robin, as kube-proxy does); below it the ${flags.replicas} replicas`
      : "what runs where:",
  ];
  for (const d of deployments) {
    lines.push(`  ${pad(d.name, 20)}${d.front}`);
    if (flags.replicas > 1)
      for (const r of d.replicas) lines.push(`    ${pad(r.name, 18)}${pad(r.where, 44)}pid ${r.proc.pid}`);
  }
  lines.push(...natsRows, `  ${pad("Postgres", 20)}${pgSource}`);
  for (const line of lines) log(line);
}

try {
  if (flags.natsCluster && process.env.NATS_URL)
    throw new Error("--nats-cluster starts a NATS cluster of its own: unset NATS_URL, or leave out the flag");
  const infraEnv = loadConfig(infraConfig);
  const pg = await findOrStartPostgres({
    database: "fop",
    dataDir: path.join(DATA, "postgres"),
    log,
    env: infraEnv,
  });
  infra.push(pg);
  log(`Postgres: ${pg.source}`);
  const cluster = flags.natsCluster ? await startLocalNatsCluster() : undefined;
  const nats = cluster ?? (await findOrStartNats({ dataDir: path.join(DATA, "nats"), log, env: infraEnv }));
  infra.push(nats);
  log(`NATS: ${nats.source}`);

  await setupDatabase(pg.url, log);

  const logLevel = process.env.LOG_LEVEL ?? "info";
  const secret = process.env.CURSOR_SECRET ?? persistedSecret("cursor-secret", "base64url");
  const rpcAuthKey = process.env.RPC_AUTH_KEY ?? persistedSecret("rpc-auth-key", "base64url");
  const smtpUrl = process.env.SMTP_URL ?? (await startLocalMail());
  // Notifications on a developer's machine: mails to the capture server, webhooks to local receivers.
  const notificationsEnv = {
    SMTP_URL: smtpUrl,
    WEBHOOK_SECRETS_KEY: process.env.WEBHOOK_SECRETS_KEY ?? persistedSecret("webhook-secrets-key", "base64"),
    WEBHOOK_ALLOW_HTTP: process.env.WEBHOOK_ALLOW_HTTP ?? "true",
    WEBHOOK_ALLOWED_CIDRS: process.env.WEBHOOK_ALLOWED_CIDRS ?? "127.0.0.0/8,::1/128",
  };
  const n = flags.replicas;
  // The balancers listen before anything starts: a port another launcher holds fails at once.
  const port = process.env.PORT ?? String(await knownPort(8080));
  const gatewayProxy = n > 1 ? await balancer(Number(port)) : undefined;
  // Each service's Service: its known ports (the balancers' with --replicas); what every caller
  // (the gateway, a service calling another) is given in <NAME>_URL, as the manifests do.
  const fronts = new Map<string, { rpc: number; admin: number }>();
  for (const { module } of SERVICES) {
    const known = module.ports;
    fronts.set(module.name, { rpc: await knownPort(known.rpc), admin: await knownPort(known.admin) });
  }
  const serviceUrls = Object.fromEntries(
    SERVICES.map(({ module }) => [
      `${module.name.toUpperCase()}_URL`,
      `http://127.0.0.1:${fronts.get(module.name)!.rpc}`,
    ]),
  );
  const proxies = new Map<string, { rpc: EndpointsProxy; admin: EndpointsProxy }>();
  if (n > 1)
    for (const [name, front] of fronts)
      proxies.set(name, { rpc: await balancer(front.rpc), admin: await balancer(front.admin) });
  for (const { module, main } of SERVICES) {
    const front = fronts.get(module.name)!;
    const proxy = proxies.get(module.name);
    const replicas: Replica[] = [];
    for (let i = 1; i <= n; i++) {
      const ports = proxy ? { rpc: await newPort(), admin: await newPort() } : front;
      const name = proxy ? `${module.name}-${i}` : module.name;
      const proc = run(
        name,
        main,
        {
          DATABASE_URL: serviceDatabaseUrl(pg.url, module.schema),
          NATS_URL: nats.url,
          PORT: String(ports.rpc),
          ADMIN_PORT: String(ports.admin),
          LOG_LEVEL: logLevel,
          CURSOR_SECRET: secret,
          RPC_AUTH_KEY: rpcAuthKey,
          // A developer's machine: dead letters (read, replay) for callers on it, unless ADMIN_TOKEN is set.
          ADMIN_LOOPBACK_TRUST: process.env.ADMIN_LOOPBACK_TRUST ?? "true",
          // Three copies of the event stream on three servers (deploy/k8s/components/nats-cluster).
          ...(cluster ? { EVENTS_STREAM_REPLICAS: String(NATS_CLUSTER_SIZE) } : {}),
          // Where the services they call are (their defaults are the known ports).
          ...(flags.freePorts ? serviceUrls : {}),
          ...(module.name === "notifications" ? notificationsEnv : {}),
        },
        module.name,
      );
      const own = (port: number) => `http://127.0.0.1:${port}`;
      replicas.push({
        name,
        where: `rpc 127.0.0.1:${ports.rpc}  admin 127.0.0.1:${ports.admin}`,
        proc,
        readyz: `${own(ports.admin)}/readyz`,
        endpoints: proxy
          ? [
              { proxy: proxy.rpc, url: own(ports.rpc) },
              { proxy: proxy.admin, url: own(ports.admin) },
            ]
          : [],
      });
    }
    deployments.push({
      name: module.name,
      front: `rpc 127.0.0.1:${front.rpc}  admin 127.0.0.1:${front.admin}`,
      replicas,
    });
  }
  // Ready replicas become endpoints of their balancers, as a Service's endpoints follow readiness.
  const becomeReady = async (r: Replica) => {
    await waitReady(r.name, r.readyz);
    for (const { proxy, url } of r.endpoints) proxy.add(url);
  };
  await Promise.all(deployments.flatMap((d) => d.replicas.map(becomeReady)));

  const gateways: Replica[] = [];
  for (let i = 1; i <= n; i++) {
    const own = gatewayProxy ? String(await newPort()) : port;
    const name = gatewayProxy ? `gateway-${i}` : "gateway";
    const proc = run(
      name,
      GATEWAY_MAIN,
      {
        PORT: own,
        LOG_LEVEL: logLevel,
        GRAPHQL_GRAPHIQL: "true",
        RPC_AUTH_KEY: rpcAuthKey,
        // The rate limit's exchange between the gateway replicas: the same NATS as the services.
        NATS_URL: nats.url,
        ...serviceUrls,
      },
      "gateway",
    );
    const url = `http://127.0.0.1:${own}`;
    gateways.push({
      name,
      where: `127.0.0.1:${own}`,
      proc,
      readyz: `${url}/readyz`,
      endpoints: gatewayProxy ? [{ proxy: gatewayProxy, url }] : [],
    });
  }
  deployments.unshift({ name: "gateway", front: `http://127.0.0.1:${port}`, replicas: gateways });
  await Promise.all(gateways.map(becomeReady));
  if (n > 1 || cluster) {
    const natsRows = cluster
      ? cluster.urls.map((url, i) => `  ${`nats-${i}`.padEnd(20)}${url.padEnd(44)}pid ${cluster.pids()[i]}`)
      : [`  ${"NATS".padEnd(20)}${nats.url}`];
    printTable(
      [
        ...(cluster
          ? [`  NATS cluster        NATS_URL=${nats.url}  EVENTS_STREAM_REPLICAS=${NATS_CLUSTER_SIZE}`]
          : []),
        ...natsRows,
      ],
      pg.source,
    );
  }
  log(`ready: http://127.0.0.1:${port}  (docs: http://127.0.0.1:${port}/docs, OpenAPI: /api/openapi.json)`);
  log(`GraphQL: http://127.0.0.1:${port}/graphql  (GraphiQL: http://127.0.0.1:${port}/graphiql)`);
  log(`get a token:  npm run token -- --tenant acme --roles ADMIN`);
  log(`call a service directly (gRPC, Connect): npm run rpc-token -- --caller me --tenants acme`);
  log("Ctrl-C stops everything");
} catch (err) {
  console.error(`\x1b[31m[start]\x1b[0m ${(err as Error).message}`);
  await stop(1);
}
