/**
 * Prometheus metrics: one prom-client registry per process (every sample labelled `service`, plus
 * Node's default process metrics), served at /metrics (the gateway's port, each service's admin
 * port), and {@link METRICS}, the catalog of every metric family the kit defines. Processes create
 * these families only through the catalog (get-or-create: several relays or consumers in one
 * process share a family), so the catalog is what the processes expose; the alert rules and the
 * dashboard of deploy/k8s/components/monitoring are checked against it (deploy/k8s/manifests.test.ts).
 *
 * Names follow Prometheus and OpenTelemetry conventions: base units in the name (`_seconds`),
 * `_total` on counters, snake_case, the OpenTelemetry semantic-convention name where one exists
 * (`http.server.request.duration` -> http_server_request_duration_seconds, attributes `http.route`
 * -> `http_route`), `fop_` for the platform's own.
 *
 * Gauges of state held elsewhere (the outbox table, JetStream's consumer info, a connection pool)
 * are read when the registry is read, i.e. per scrape ({@link onCollect}); a read that fails or takes
 * too long reports NaN (or nothing) instead of failing or holding up /metrics ({@link sharedRead}).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** Per-process Prometheus registry (default label `service`) with Node's default metrics. */
export interface Metrics {
  registry: Registry;
}

interface FamilyOf<T extends string, L extends string> {
  type: T;
  name: string;
  help: string;
  labelNames: readonly L[];
}
export type CounterFamily<L extends string = string> = FamilyOf<"counter", L>;
export type GaugeFamily<L extends string = string> = FamilyOf<"gauge", L>;
export interface HistogramFamily<L extends string = string> extends FamilyOf<"histogram", L> {
  buckets: readonly number[];
}
export type Family = CounterFamily | GaugeFamily | HistogramFamily;

/** How long a scrape waits for a read of external state (the outbox query, JetStream's consumer info). */
export const SCRAPE_READ_TIMEOUT_MS = 2_000;

/** Request durations, 1 ms to 10 s (the gateway's default RPC deadline); slower ones count in +Inf. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const counterFamily = <L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
): CounterFamily<L> => ({ type: "counter", name, help, labelNames });
const gaugeFamily = <L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
): GaugeFamily<L> => ({ type: "gauge", name, help, labelNames });
const histogramFamily = <L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
  buckets: readonly number[],
): HistogramFamily<L> => ({ type: "histogram", name, help, labelNames, buckets });

const consumerLabels = ["consumer", "stream"] as const;
const poolLabel = "db_client_connection_pool_name";

/** Every metric family of the kit (service-specific counters: {@link createCounter}). */
export const METRICS = {
  /** The gateway, per request (OpenTelemetry http.server.request.duration). */
  httpServerDuration: histogramFamily(
    "http_server_request_duration_seconds",
    "Duration of HTTP requests the gateway served, by route template (never the raw path), method and status; graphql_operation_type (query, mutation, subscription) on /graphql only",
    ["http_request_method", "http_route", "http_response_status_code", "graphql_operation_type"],
    DURATION_BUCKETS,
  ),
  /**
   * The gateway's rate limit, per request decided while its replicas could not exchange their counts
   * (NATS unreachable): the limit was this replica's alone then (fail open).
   */
  rateLimitUnsynced: counterFamily(
    "fop_rate_limit_unsynced_requests_total",
    "Requests the gateway's rate limit decided on this replica's own counts because it could not exchange them with the other gateway replicas over NATS (fail open: meanwhile a tenant's limit holds per replica, not for the cluster)",
    [],
  ),
  /** The gateway's load shedding: API requests answered 503 at once because the replica had its bound in flight. */
  gatewayShed: counterFamily(
    "fop_gateway_shed_requests_total",
    "API requests the gateway answered 503 SERVICE_OVERLOADED at once, without working on them, because this replica was working on MAX_IN_FLIGHT requests already (load shedding)",
    [],
  ),
  /** A service, per RPC (OpenTelemetry rpc.server.duration, in seconds). */
  rpcServerDuration: histogramFamily(
    "rpc_server_duration_seconds",
    "Duration of RPCs a service handled, by service (fop.catalog.v1.CatalogService), method (GetFacility) and gRPC status code name (OK, NOT_FOUND, INTERNAL, ...)",
    ["rpc_service", "rpc_method", "rpc_response_status_code"],
    DURATION_BUCKETS,
  ),
  outboxBacklog: gaugeFamily(
    "fop_outbox_backlog_events",
    "Events in this service's outbox not yet published to JetStream (read per scrape; NaN if the database did not answer in time)",
    [],
  ),
  outboxOldestAge: gaugeFamily(
    "fop_outbox_oldest_event_age_seconds",
    "Age of the oldest event in this service's outbox not yet published (0 when it is empty; read per scrape; NaN if the database did not answer in time)",
    [],
  ),
  outboxPublished: counterFamily(
    "fop_outbox_published_events_total",
    "Events this process's outbox relay published to JetStream (acknowledged by the stream)",
    [],
  ),
  outboxPublishes: counterFamily(
    "fop_outbox_publishes_total",
    "Batches this process's outbox relay published (events / batches = events per batch)",
    [],
  ),
  consumerEvents: counterFamily(
    "fop_consumer_events_total",
    "Events by consumer and outcome (done: applied, now or before; skipped: a type not consumed; redelivered: failed and handed back for a later delivery; dead_lettered)",
    ["consumer", "outcome"],
  ),
  consumerStatements: counterFamily(
    "fop_consumer_statements_total",
    "Batch statements (batch mode) or transactions (handle mode) by consumer and mode (batch: a batch's; single: one event alone, after its batch failed or arriving alone)",
    ["consumer", "mode"],
  ),
  consumerReplays: counterFamily(
    "fop_consumer_replays_total",
    "Dead letters replayed by consumer and outcome (replayed: applied, or found applied, and its row deleted; failed: kept with the new error), through the admin port's POST /dead-letters/replay",
    ["consumer", "outcome"],
  ),
  consumerRedeliveries: counterFamily(
    "fop_consumer_redeliveries_total",
    "Messages a durable consumer received again (JetStream delivery count above 1: a nak, or no ack within the ack wait)",
    consumerLabels,
  ),
  consumerLag: gaugeFamily(
    "fop_consumer_lag_messages",
    "Messages of the stream a durable consumer has not been delivered yet (JetStream num_pending; read per scrape; NaN if NATS did not answer in time)",
    consumerLabels,
  ),
  consumerAckPending: gaugeFamily(
    "fop_consumer_ack_pending_messages",
    "Messages delivered to a durable consumer and not yet acknowledged (JetStream num_ack_pending; read per scrape)",
    consumerLabels,
  ),
  consumerDeadLetters: gaugeFamily(
    "fop_consumer_dead_letters",
    "Dead letters stored in this service's dead_letter table, per consumer (read per scrape)",
    ["consumer"],
  ),
  /** OpenTelemetry db.client.connection.count, per pool: idle and used connections. */
  dbConnections: gaugeFamily(
    "db_client_connection_count",
    "Connections of a Postgres pool by state (idle, used)",
    [poolLabel, "db_client_connection_state"],
  ),
  dbConnectionsMax: gaugeFamily("db_client_connection_max", "The most connections a Postgres pool opens", [
    poolLabel,
  ]),
  dbPendingRequests: gaugeFamily(
    "db_client_connection_pending_requests",
    "Requests waiting for a connection of a Postgres pool (all its connections in use)",
    [poolLabel],
  ),
} as const satisfies Record<string, Family>;

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return { registry };
}

/** The family `def` of this registry, created on first use. */
function family<M>(metrics: Metrics, def: Family, make: () => M): M {
  const existing = metrics.registry.getSingleMetric(def.name);
  if (!existing) return make();
  const { type, labelNames = [] } = existing as unknown as { type?: string; labelNames?: string[] };
  if (type !== undefined && type !== def.type)
    throw new Error(`metric ${def.name} is registered as a ${type}, not a ${def.type}`);
  if ([...labelNames].sort().join() !== [...def.labelNames].sort().join())
    throw new Error(`metric ${def.name} is registered with labels [${labelNames}], not [${def.labelNames}]`);
  return existing as M;
}

export function counter<L extends string>(metrics: Metrics, def: CounterFamily<L>): Counter<L> {
  return family(
    metrics,
    def,
    () =>
      new Counter<L>({
        name: def.name,
        help: def.help,
        labelNames: def.labelNames,
        registers: [metrics.registry],
      }),
  );
}

export function histogram<L extends string>(metrics: Metrics, def: HistogramFamily<L>): Histogram<L> {
  return family(
    metrics,
    def,
    () =>
      new Histogram<L>({
        name: def.name,
        help: def.help,
        labelNames: def.labelNames,
        buckets: [...def.buckets],
        registers: [metrics.registry],
      }),
  );
}

type Source<L extends string> = (gauge: Gauge<L>) => void | Promise<void>;
const sources = new WeakMap<object, Set<Source<string>>>();

/** A gauge family; {@link onCollect} adds what sets its values at each scrape. */
export function gauge<L extends string>(metrics: Metrics, def: GaugeFamily<L>): Gauge<L> {
  return family(metrics, def, () => {
    const mine = new Set<Source<string>>();
    const g = new Gauge<L>({
      name: def.name,
      help: def.help,
      labelNames: def.labelNames,
      registers: [metrics.registry],
      async collect() {
        // A source must never fail the scrape: it reports NaN or nothing instead.
        await Promise.all(
          [...mine].map(async (s) => {
            try {
              await s(g as unknown as Gauge<string>);
            } catch {}
          }),
        );
      },
    });
    sources.set(g, mine);
    return g;
  });
}

/**
 * Runs `source` at every read of the registry (a scrape), before `def` reports: it sets the
 * family's values from state held elsewhere. Returns what removes it again.
 */
export function onCollect<L extends string>(
  metrics: Metrics,
  def: GaugeFamily<L>,
  source: Source<L>,
): () => void {
  const g = gauge(metrics, def);
  const set = sources.get(g);
  if (!set) throw new Error(`metric ${def.name} was not created by the kit`);
  const s = source as unknown as Source<string>;
  set.add(s);
  return () => void set.delete(s);
}

/** `promise`'s value, or undefined when it fails or has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });
}

/**
 * A read of external state for scrape-time gauges: at most one `load` runs at a time (a read that
 * hangs, e.g. on a database that does not answer, holds one connection, not one per scrape), its
 * result is shared by the callers within `reuseMs` after it (the gauge families one query feeds),
 * and each caller waits at most `timeoutMs`: undefined means "failed or too slow".
 */
export function sharedRead<T>(
  load: () => Promise<T>,
  opts: { timeoutMs: number; reuseMs?: number },
): () => Promise<T | undefined> {
  const reuseMs = opts.reuseMs ?? 250;
  let inFlight: Promise<T> | undefined;
  let last: { at: number; value: T } | undefined;
  return () => {
    if (last && Date.now() - last.at < reuseMs) return Promise.resolve(last.value);
    inFlight ??= load()
      .then((value) => {
        last = { at: Date.now(), value };
        return value;
      })
      .finally(() => {
        inFlight = undefined;
      });
    return within(inFlight, opts.timeoutMs);
  };
}

/** What the pool gauges read of a node-postgres Pool. */
export interface ObservablePool {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly options: { max?: number };
}

/**
 * Connection-pool gauges for `pool`, read per scrape: db_client_connection_count{state=idle|used},
 * db_client_connection_max and db_client_connection_pending_requests, labelled with `name`.
 * Returns what stops reporting them.
 */
export function observePool(metrics: Metrics, name: string, pool: ObservablePool): () => void {
  const labels = { [poolLabel]: name };
  const stops = [
    onCollect(metrics, METRICS.dbConnections, (g) => {
      g.set({ ...labels, db_client_connection_state: "idle" }, pool.idleCount);
      g.set({ ...labels, db_client_connection_state: "used" }, pool.totalCount - pool.idleCount);
    }),
    onCollect(metrics, METRICS.dbConnectionsMax, (g) => g.set(labels, pool.options.max ?? 10)),
    onCollect(metrics, METRICS.dbPendingRequests, (g) => g.set(labels, pool.waitingCount)),
  ];
  return () => {
    for (const stop of stops) stop();
    gauge(metrics, METRICS.dbConnections).remove({ ...labels, db_client_connection_state: "idle" });
    gauge(metrics, METRICS.dbConnections).remove({ ...labels, db_client_connection_state: "used" });
    gauge(metrics, METRICS.dbConnectionsMax).remove(labels);
    gauge(metrics, METRICS.dbPendingRequests).remove(labels);
  };
}

/**
 * A counter with labels in this process's registry, for a service's own work (e.g. outcomes of
 * background work); created on first use, the same counter after.
 */
export function createCounter<L extends string>(
  metrics: Metrics,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return counter(metrics, counterFamily(name, help, labelNames));
}
