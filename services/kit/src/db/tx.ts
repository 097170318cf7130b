/**
 * One unit of work = one transaction on one connection. Database errors that mean something
 * to a caller (a taken unique identifier, a value Postgres cannot store, a passed deadline) become
 * AppErrors here, in one place.
 */
import type pg from "pg";
import { checkDeadline, DEADLINE_SQLSTATE, deadlineExceeded } from "../deadline.ts";
import { AppError, isAppError } from "../errors.ts";
import { type Db, dbOf, type SqlPool } from "./sql.ts";

/** Maps a unique index name to the error its violation means (e.g. a taken tenant identifier). */
export type UniqueViolations = Readonly<Record<string, () => AppError>>;

/**
 * Postgres cannot be reached or is not taking work: SQLSTATE class 08 (connection exception),
 * 57P01-57P03 (shutting down, crashed, starting up), 53300 (too many connections); or the socket
 * itself failed (refused, reset, timed out) or pg gave up on a lost or unopenable connection.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  const code = typeof e.code === "string" ? e.code : "";
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300")
    return true;
  if (
    ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"].includes(
      code,
    )
  )
    return true;
  const message = typeof e.message === "string" ? e.message : "";
  return /^Connection terminated|timeout exceeded when trying to connect|is not queryable|Client was closed/.test(
    message,
  );
}

/** SQLSTATEs that mean the request carried a value Postgres cannot store or compare: the caller's 400. */
const BAD_VALUE_STATES = new Set(["22P05", "22021", "22P02", "22003", "22007", "22008", "2201B", "54000"]);

export function translateDbError(err: unknown, unique: UniqueViolations = {}): unknown {
  if (isAppError(err)) return err;
  const state = (err as { code?: string }).code;
  if (state === DEADLINE_SQLSTATE) return deadlineExceeded();
  // Not done (or, for a connection lost during COMMIT, not known to be done): the caller retries.
  if (isDatabaseUnavailable(err)) {
    return new AppError("unavailable", {
      code: "DATABASE_UNAVAILABLE",
      description: "The service cannot reach its database right now; retry with exponential backoff.",
    });
  }
  if (state && BAD_VALUE_STATES.has(state)) {
    return new AppError("invalid", {
      code: "INVALID_VALUE",
      summary: "Invalid input.",
      description: "A value in the request cannot be stored or compared.",
    });
  }
  if (state === "23505") {
    const constraint = (err as { constraint?: string }).constraint ?? "";
    const known = unique[constraint];
    if (known) return known();
    return new AppError("conflict", {
      code: "DUPLICATE",
      description: "An entity with the same identifier exists.",
    });
  }
  return err;
}

/**
 * Runs `fn` in a transaction on one connection of the service's pool. Inside an RPC the call's
 * deadline is checked before the transaction begins and again before it commits (deadline.ts): past
 * it, nothing is written and the caller gets `DEADLINE_EXCEEDED` (a retry is safe). Database
 * errors that mean something to the caller are translated ({@link translateDbError}). What `fn`
 * registers with `afterCommit` runs once the transaction has committed.
 */
export async function inTransaction<T>(
  db: SqlPool,
  fn: (tx: Db) => Promise<T>,
  unique: UniqueViolations = {},
): Promise<T> {
  checkDeadline();
  let client: pg.PoolClient;
  try {
    client = await db.pool.connect();
  } catch (err) {
    throw translateDbError(err, unique);
  }
  let broken: Error | undefined;
  const committed: (() => void)[] = [];
  try {
    await client.query("begin");
    const result = await fn({ ...dbOf(client), afterCommit: (f) => void committed.push(f) });
    checkDeadline(); // throwing here rolls the transaction back
    await client.query("commit");
    for (const f of committed) f();
    return result;
  } catch (err) {
    await client.query("rollback").catch((e: Error) => {
      broken = e; // the connection is unusable: the pool drops it
    });
    throw translateDbError(err, unique);
  } finally {
    client.release(broken);
  }
}

/**
 * Runs the reads of `fn` on one snapshot (a read-only REPEATABLE READ transaction on one
 * connection), for statements that must agree — a page and its total: on two pool connections a
 * write committed between them shows in one and not the other (a total lower than the page). On a
 * transaction already (a `Db` without a pool) it runs there.
 */
export async function readSnapshot<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  const pool = (db as Partial<SqlPool>).pool;
  if (!pool) return fn(db);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw translateDbError(err);
  }
  let broken: Error | undefined;
  try {
    await client.query("begin isolation level repeatable read read only");
    const result = await fn(dbOf(client));
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch((e: Error) => {
      broken = e;
    });
    throw translateDbError(err);
  } finally {
    client.release(broken);
  }
}
