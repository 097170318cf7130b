/**
 * The life cycle every service shares: config -> ORM -> RPC + admin servers -> listen -> graceful
 * close. A service describes itself as a {@link ServiceModule}; its main.ts is two lines, and the
 * launcher and tests start the very same thing.
 */
import type { ConnectRouter } from "@connectrpc/connect";
import type { EntitySchema, MigrationObject } from "@mikro-orm/postgresql";
import type { FastifyInstance } from "fastify";
import { ablatedLayers, ablationConfig, ablationWarning } from "./ablation.ts";
import { buildAdminServer } from "./admin.ts";
import { type ConfigOf, type ConfigSchema, env, loadConfig } from "./config.ts";
import { initOrm, migrate } from "./db/orm.ts";
import { createSqlPool, type SqlPool } from "./db/sql.ts";
import { DEFAULT_CONSUMER_GATHER_MS } from "./events/consumer/options.ts";
import { isEventConsumer, listAllDeadLetters } from "./events/consumer.ts";
import { connectNats, type Nats } from "./events/nats.ts";
import { DEFAULT_GATHER_MS, Outbox, outboxRelay } from "./events/outbox.ts";
import { newId } from "./ids.ts";
import { createLogger, type Logger } from "./logger.ts";
import { createMetrics, type Metrics, observePool } from "./metrics.ts";
import { shutdownTracing } from "./otel.ts";
import {
  componentCredentials,
  type RpcCredentials,
  rpcAuthConfig,
  rpcKeys,
  rpcTokenVerifier,
} from "./rpc/auth.ts";
import { buildRpcServer, type RpcServer } from "./rpc/server.ts";
import { type CursorCodec, cursorCodec } from "./search/cursor.ts";
import type { Worker } from "./worker.ts";

/** Where a service listens by default (its PORT and ADMIN_PORT defaults). */
export interface ServicePorts {
  /** Connect RPC (h2c). */
  rpc: number;
  /** Health, metrics and dead letters (HTTP/1.1). */
  admin: number;
}

/** Environment every service reads. */
export const baseServiceConfig = (ports: ServicePorts) => ({
  DATABASE_URL: env.url("Postgres URL of this service's own role (its schema's owner)"),
  HOST: env.string("interface to listen on", "127.0.0.1"),
  PORT: env.int("Connect RPC port (h2c)", ports.rpc, 0, 65535),
  ADMIN_PORT: env.int("health/metrics port (HTTP/1.1)", ports.admin, 0, 65535),
  LOG_LEVEL: env.oneOf(["trace", "debug", "info", "warn", "error", "fatal", "silent"], "log level", "info"),
  DB_POOL_MAX: env.int("database connections per process", 10, 1, 200),
  MIGRATE_ON_START: env.bool("apply pending migrations before serving", false),
  NATS_URL: env.string("NATS server(s) with JetStream, comma-separated", "nats://127.0.0.1:4222"),
  EVENTS_STREAM: env.string("JetStream stream of domain events", "EVENTS"),
  EVENTS_SUBJECT_PREFIX: env.string("events are published on <prefix>.<TYPE>", "events"),
  EVENTS_STREAM_REPLICAS: env.int("replicas of the event stream (JetStream cluster)", 1, 1, 5),
  EVENTS_STREAM_MAX_AGE_HOURS: env.int("how long the stream keeps events", 7 * 24, 1),
  EVENTS_ACK_WAIT_MS: env.int("redelivery of an event a consumer did not acknowledge (crash)", 30_000, 1000),
  INBOX_RETENTION_MINUTES: env.int(
    "how long a consumer keeps an applied event's id in its inbox (a redelivery within it is a no-op); older rows are deleted while it runs",
    14 * 24 * 60,
    1,
  ),
  EVENT_CONSUMERS: env.oneOf(
    ["on", "off"],
    "run this process's durable event consumers (off: a replica that serves RPC only; the outbox relay and the other workers still run)",
    "on",
  ),
  CONSUMER_GATHER_MS: env.int(
    "how long an event consumer's batch waits for more events after its first: under load the events of those milliseconds are applied by one statement and acknowledged together (0: only those that arrived in one read)",
    DEFAULT_CONSUMER_GATHER_MS,
    0,
    1000,
  ),
  OUTBOX_POLL_MS: env.int(
    "outbox relay polling interval (the fallback: a committed write is published from memory by its own process)",
    1000,
    10,
  ),
  OUTBOX_GATHER_MS: env.int(
    "shortest interval between two publishes of the outbox relay's fast path: events committed meanwhile go as one batch (0: each commit's at once)",
    DEFAULT_GATHER_MS,
    0,
    1000,
  ),
  ADMIN_TOKEN: env.optionalString(
    "bearer token for the admin port's /dead-letters and /dead-letters/replay (unset: refused to every caller, unless ADMIN_LOOPBACK_TRUST)",
  ),
  ADMIN_LOOPBACK_TRUST: env.bool(
    "without ADMIN_TOKEN, serve /dead-letters and /dead-letters/replay to callers on this host (a developer's machine only: npm start and the tests set it; behind a sidecar proxy every caller is loopback)",
    false,
  ),
  CURSOR_SECRET: env.optionalString(
    "secret that signs search cursors (every replica the same; unset: a random one per process)",
  ),
  ...rpcAuthConfig,
  /** Benchmarks only: layers turned off (refused without FOP_BENCH=1, see ablation.ts). */
  ...ablationConfig,
});
export type BaseServiceConfig = ConfigOf<ReturnType<typeof baseServiceConfig>>;

/** What every service's dependencies start from. */
export interface ServiceBase {
  /** The Postgres schema the service owns ({@link ServiceModule.schema}). */
  schema: string;
  /** The service's Postgres pool (its own role and schema): plain SQL, db/sql.ts. */
  db: SqlPool;
  nats: Nats;
  /** Records domain events in the use case's transaction. */
  outbox: Outbox;
  /** Signs and verifies this service's search cursors (CURSOR_SECRET). */
  cursors: CursorCodec;
  /** This service's token for its calls to other services (rpc/auth.ts). */
  rpcCredentials: RpcCredentials;
  logger: Logger;
  metrics: Metrics;
  now: () => Date;
  newId: () => string;
  /** How long an event consumer's batch waits for more (CONSUMER_GATHER_MS; consumer/options.ts). */
  consumerGatherMs: number;
}

export interface ServiceModule<D, S extends ConfigSchema = ConfigSchema> {
  /** The service's name: its logs, metrics, RPC identity and database application name. */
  name: string;
  /** Its default ports (the platform's: @fop/contracts/service-ports). */
  ports: ServicePorts;
  /** The Postgres schema the service owns. */
  schema: string;
  /**
   * MikroORM entity schemas; none by default: MikroORM only runs the migrations, the use cases
   * read and write with plain SQL (db/sql.ts).
   */
  // biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
  entities?: EntitySchema<any, any>[];
  migrations: MigrationObject[];
  /** The service's own environment on top of {@link baseServiceConfig}. */
  config: S;
  createDeps(base: ServiceBase, config: ConfigOf<S>): D | Promise<D>;
  routes(deps: D): (router: ConnectRouter) => void;
  workers?(deps: D, base: ServiceBase, config: ConfigOf<S>): Worker[];
}

export interface RunningService<D> {
  deps: D;
  base: ServiceBase;
  rpc: RpcServer;
  admin: FastifyInstance;
  /** The outbox relay and the module's own workers (event consumers only with EVENT_CONSUMERS=on), started after listen. */
  workers: Worker[];
  /** http://host:port of the RPC listener. */
  rpcUrl: string;
  adminUrl: string;
  /** Drains and stops (see {@link startService}); safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Reads the service's whole environment (base + own), failing with every problem named; `source`
 * defaults to the process's environment ({@link loadConfig}).
 */
export function loadServiceConfig<S extends ConfigSchema>(
  mod: Pick<ServiceModule<unknown, S>, "ports" | "config">,
  source?: Record<string, string | undefined>,
): BaseServiceConfig & ConfigOf<S> {
  return loadConfig({ ...baseServiceConfig(mod.ports), ...mod.config }, source) as BaseServiceConfig &
    ConfigOf<S>;
}

/** Applies the service's pending migrations with its own role; returns their names. */
export async function migrateService(
  mod: Pick<ServiceModule<unknown>, "schema" | "entities" | "migrations">,
  databaseUrl: string,
): Promise<string[]> {
  const orm = await initOrm({
    clientUrl: databaseUrl,
    schema: mod.schema,
    entities: mod.entities ?? [],
    migrations: mod.migrations,
    poolMax: 1,
  });
  try {
    return await migrate(orm);
  } finally {
    await orm.close();
  }
}

/**
 * src/migrate.ts of every service: applies the service's pending migrations with its own role
 * (DATABASE_URL, as {@link baseServiceConfig} declares it) and prints their names; exits 2 on a
 * configuration error. Deployments migrate through deploy/local/src/db-setup.ts instead.
 */
export async function runMigrate(
  mod: Pick<ServiceModule<unknown>, "name" | "ports" | "schema" | "entities" | "migrations">,
): Promise<void> {
  let databaseUrl: string;
  try {
    ({ DATABASE_URL: databaseUrl } = loadConfig({ DATABASE_URL: baseServiceConfig(mod.ports).DATABASE_URL }));
  } catch (err) {
    console.error(`${mod.name} migrate: ${(err as Error).message}`);
    process.exit(2);
  }
  const applied = await migrateService(mod, databaseUrl);
  console.log(`${mod.name} migrations applied: ${applied.join(", ") || "none pending"}`);
}

/** How long /readyz waits for the database (a connection, then `select 1`) before it says not ready. */
const READY_TIMEOUT_MS = 2_000;

/**
 * Starts the service: ORM, deps, RPC and admin listeners, workers (the event consumers among them
 * only with EVENT_CONSUMERS=on, the default).
 *
 * Its close() drains, in this order, so that nothing in flight is lost:
 * 1. unready at once: /readyz answers 503 and Health/Check NOT_SERVING;
 * 2. the RPC server stops listening and sends GOAWAY: running calls finish (up to
 *    RPC_SHUTDOWN_GRACE_MS), new ones go to another connection (rpc/server.ts, rpc/connect-h2-transport.ts);
 * 3. the workers stop, last started first: consumers finish the messages they hold (acknowledged, or
 *    left for redelivery), the outbox relay publishes what the last calls wrote;
 * 4. the admin listener, NATS (drained) and the database pool close.
 */
export async function startService<D, S extends ConfigSchema>(
  mod: ServiceModule<D, S>,
  config: BaseServiceConfig & ConfigOf<S>,
  opts: { logger?: Logger } = {},
): Promise<RunningService<D>> {
  // First: a production configuration naming FOP_ABLATE without FOP_BENCH fails here.
  const ablation = ablatedLayers(config);
  const logger = opts.logger ?? createLogger({ service: mod.name, level: config.LOG_LEVEL });
  const warning = ablationWarning(ablation);
  if (warning) logger.warn(warning);
  if (config.MIGRATE_ON_START) {
    const applied = await migrateService(mod as ServiceModule<unknown>, config.DATABASE_URL);
    if (applied.length) logger.info({ applied }, "migrations applied");
  }
  const db = createSqlPool(config.DATABASE_URL, { max: config.DB_POOL_MAX, applicationName: mod.name });
  const nats = await connectNats(
    config.NATS_URL,
    mod.name,
    {
      stream: config.EVENTS_STREAM,
      subjectPrefix: config.EVENTS_SUBJECT_PREFIX,
      replicas: config.EVENTS_STREAM_REPLICAS,
      maxAgeMs: config.EVENTS_STREAM_MAX_AGE_HOURS * 3600_000,
      duplicateWindowMs: 2 * 60_000,
      ackWaitMs: config.EVENTS_ACK_WAIT_MS,
      inboxRetentionMs: config.INBOX_RETENTION_MINUTES * 60_000,
    },
    logger,
  );
  const outbox = new Outbox({ schema: mod.schema, subjectPrefix: config.EVENTS_SUBJECT_PREFIX });
  if (!config.CURSOR_SECRET) {
    logger.warn("CURSOR_SECRET is not set: search cursors are signed with a key of this process only");
  }
  if (!config.ADMIN_TOKEN && !config.ADMIN_LOOPBACK_TRUST) {
    logger.warn(
      "ADMIN_TOKEN is not set: the admin port's /dead-letters and /dead-letters/replay refuse every caller",
    );
  }
  const keys = rpcKeys(config);
  const base: ServiceBase = {
    schema: mod.schema,
    db,
    nats,
    outbox,
    cursors: cursorCodec(config.CURSOR_SECRET),
    rpcCredentials: componentCredentials(keys, mod.name),
    logger,
    metrics: createMetrics(mod.name),
    now: () => new Date(),
    newId,
    consumerGatherMs: config.CONSUMER_GATHER_MS,
  };
  observePool(base.metrics, "main", db.pool);
  const deps = await mod.createDeps(base, config);
  let draining = false;
  // Ready = not draining, and the database answers: asked on a connection of its own, so that the
  // answer does not wait behind the work queued for the pool (a probe queued behind a backlog says
  // "not ready" of a database that answers: a replica busy catching up is taken out of its Service,
  // all of them at once if all are busy), and bounded, so that a probe fails rather than hangs.
  const probe = createSqlPool(config.DATABASE_URL, {
    max: 1,
    applicationName: `${mod.name} readiness`,
    timeoutMs: READY_TIMEOUT_MS,
  });
  const ready = async () =>
    !draining && (await probe.query({ text: "select 1", params: [], prepare: true })).length === 1;
  const rt = { service: mod.name, logger, metrics: base.metrics, ready, verify: rpcTokenVerifier(keys) };
  // With FOP_ABLATE: the gateway may call over HTTP/1.1 (ablation.ts); JSON is always taken.
  const rpc = await buildRpcServer(rt, mod.routes(deps), { http1: ablation.has("rpc-http2") });
  // Created (not started) before the admin server, which replays the consumers' dead letters.
  const own = mod.workers?.(deps, base, config) ?? [];
  const consumers = own.filter(isEventConsumer);
  const admin = buildAdminServer(rt, () => listAllDeadLetters(db, mod.schema), {
    adminToken: config.ADMIN_TOKEN,
    loopbackTrust: config.ADMIN_LOOPBACK_TRUST,
    // Replaying needs no running consumer: with EVENT_CONSUMERS=off too.
    consumers,
  });
  await rpc.listen({ host: config.HOST, port: config.PORT });
  await admin.listen({ host: config.HOST, port: config.ADMIN_PORT });
  const relay = outboxRelay({
    outbox,
    databaseUrl: config.DATABASE_URL,
    nats,
    logger,
    pollMs: config.OUTBOX_POLL_MS,
    gatherMs: config.OUTBOX_GATHER_MS,
    metrics: base.metrics,
  });
  // EVENT_CONSUMERS=off: no durable consumer is created or read from here; the other replicas'
  // consumers (or this service's next start with them on) take the events.
  const consuming = config.EVENT_CONSUMERS === "on";
  if (!consuming && consumers.length)
    logger.info(
      { consumers: consumers.map((c) => c.name) },
      "EVENT_CONSUMERS=off: event consumers not started",
    );
  const workers = [relay, ...(consuming ? own : own.filter((w) => !isEventConsumer(w)))];
  for (const w of workers) await w.start();
  const url = (app: { server: { address(): unknown } }) => {
    const addr = app.server.address();
    const port = typeof addr === "object" && addr ? (addr as { port: number }).port : config.PORT;
    const host = config.HOST === "0.0.0.0" || config.HOST === "::" ? "127.0.0.1" : config.HOST;
    return `http://${host}:${port}`;
  };
  logger.info({ rpc: url(rpc), admin: url(admin) }, `${mod.name} service listening`);
  let closing: Promise<void> | undefined;
  return {
    deps,
    base,
    rpc,
    admin,
    workers,
    rpcUrl: url(rpc),
    adminUrl: url(admin),
    close: () => {
      closing ??= (async () => {
        draining = true;
        await rpc.close();
        for (const w of [...workers].reverse())
          await w.stop().catch((err) => logger.error({ err, worker: w.name }, "stop failed"));
        await admin.close();
        await nats.close();
        await db.end();
        await probe.end();
      })();
      return closing;
    },
  };
}

/**
 * main.ts of every service: load config, start, drain and exit on SIGINT/SIGTERM (see
 * {@link startService}). The exit is forced 20 s after the signal: within Kubernetes'
 * terminationGracePeriodSeconds (30) after the preStop sleep (5), deploy/k8s.
 */
export async function runMain<D, S extends ConfigSchema>(mod: ServiceModule<D, S>): Promise<void> {
  let config: BaseServiceConfig & ConfigOf<S>;
  try {
    config = loadServiceConfig(mod);
    ablatedLayers(config); // FOP_ABLATE without FOP_BENCH=1: refused here, as a configuration error
  } catch (err) {
    console.error(`${mod.name}: ${(err as Error).message}`);
    process.exit(2);
  }
  const svc = await startService(mod, config);
  const stop = async (signal: string) => {
    const started = Date.now();
    svc.base.logger.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    await svc.close();
    await shutdownTracing();
    svc.base.logger.info({ signal, ms: Date.now() - started }, "drained; exiting");
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}
