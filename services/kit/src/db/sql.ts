/**
 * The one way services run SQL: parameterised statements ($1, $2, ...) straight on node-postgres,
 * on the service's pool (each statement autocommitted) or inside one transaction (db/tx.ts).
 * MikroORM only runs the migrations.
 *
 * A statement whose text never changes can be `prepare`d: it is then parsed and planned once per
 * connection (a named statement, its name derived from the text) instead of on every call, which
 * for our short statements is most of what Postgres spends on them. Texts built per request (search
 * filters) stay unnamed, so the per-connection statement cache stays bounded.
 */
import { createHash } from "node:crypto";
import pg from "pg";

export interface Sql {
  text: string;
  params: unknown[];
  /** The text is fixed (a constant): prepare it once per connection. */
  prepare?: boolean;
}

/** Where statements run: the pool (autocommitted, one by one) or a transaction's connection. */
export interface Db {
  query<R = Record<string, unknown>>(sql: Sql): Promise<R[]>;
  /**
   * In a transaction: runs `fn` once it has committed (never if it rolls back). Absent on the pool,
   * where each statement has committed when it returns.
   */
  afterCommit?(fn: () => void): void;
}

/** Runs `fn` once what `db` did is committed: now on the pool, at commit in a transaction. */
export function whenCommitted(db: Db, fn: () => void): void {
  if (db.afterCommit) db.afterCommit(fn);
  else fn();
}

/** The service's pool: a {@link Db} whose statements each commit on their own. */
export interface SqlPool extends Db {
  readonly pool: pg.Pool;
  end(): Promise<void>;
}

const names = new Map<string, string>();

/**
 * The statement name of a prepared text, the same on every connection and process: its operation
 * (what tracing names the DB span after, e.g. `pg.query:SELECT_1f0c...`) and a hash of the text.
 */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "SQL";
    name = `${operation}_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

const toConfig = (sql: Sql): pg.QueryConfig =>
  sql.prepare
    ? { name: statementName(sql.text), text: sql.text, values: sql.params }
    : { text: sql.text, values: sql.params };

/** A {@link Db} over a pool or one checked-out connection. */
export function dbOf(target: pg.Pool | pg.PoolClient): Db {
  return {
    async query<R>(sql: Sql): Promise<R[]> {
      return (await target.query(toConfig(sql))).rows as R[];
    },
  };
}

/** Runs `sql` on `db` (a pool or a transaction). */
export function query<R = Record<string, unknown>>(db: Db, sql: Sql): Promise<R[]> {
  return db.query<R>(sql);
}

/**
 * The service's pool on `url` (its own role), at most `max` connections. `timeoutMs` bounds both
 * getting a connection and each statement (client side): unset, a call waits as long as it takes.
 */
export function createSqlPool(
  url: string,
  opts: { max: number; applicationName?: string; timeoutMs?: number },
): SqlPool {
  const pool = createPgPool({
    connectionString: url,
    max: opts.max,
    application_name: opts.applicationName,
    idleTimeoutMillis: 30_000,
    ...(opts.timeoutMs ? { connectionTimeoutMillis: opts.timeoutMs, query_timeout: opts.timeoutMs } : {}),
  });
  return { ...dbOf(pool), pool, end: () => pool.end() };
}

/**
 * A node-postgres pool that survives the server ending its connections (a restart, a failover, an
 * administrator's pg_terminate_backend). node-postgres emits a lost connection as an 'error' event
 * on its client, and an 'error' event nobody listens to ends the process. The pool listens on idle
 * clients only; a client that is checked out *between* two statements (a transaction waiting on
 * NATS, as the outbox relay's does while it publishes) had no listener, and Postgres restarting
 * under load took a service down with "Connection terminated unexpectedly". Here every client has
 * one for its whole life: the error is already its next statement's failure (which the caller
 * sees and translates), and the pool drops the client when it is released, since it is no longer
 * queryable. Every pool of the kit is made here.
 */
export function createPgPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  // An idle connection the server dropped is replaced; say nothing louder.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}
