/**
 * What the baseline's routes share: transactions, service statements sent the baseline's way, and
 * GET by id of a stored document.
 */
import type { Db, Sql } from "@fop/kit/db/sql";
import { type ErrorKind, isAppError } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import type { FastifyReply } from "fastify";
import type pg from "pg";

/** `fn` in one transaction on a client of `pool` (rolled back if it throws). */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    const result = await fn(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A kit {@link Db} on `client` (a transaction's connection, or the pool: each statement on its own)
 * that sends every statement unnamed, as the baseline sends all its SQL (the services prepare their
 * fixed statements: see the README's "Baseline fairness").
 */
export const unnamed = (client: pg.ClientBase | pg.Pool): Db => ({
  async query<R>(sql: Sql): Promise<R[]> {
    return (await client.query(sql.text, sql.params)).rows as R[];
  },
});

export const notFound = (reply: FastifyReply) =>
  reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);

/**
 * GET by id: `select` (parameters: tenant, id; one column `json`, the document's text) answered as
 * stored, no parse and no re-serialization; 404 when `id` is no uuid or names no row.
 */
export async function sendStored(
  reply: FastifyReply,
  pool: pg.Pool,
  select: string,
  tenant: string,
  id: string,
): Promise<FastifyReply> {
  const { rows } = isUuid(id) ? await pool.query<{ json: string }>(select, [tenant, id]) : { rows: [] };
  if (!rows[0]) return notFound(reply);
  return reply.type("application/json; charset=utf-8").send(rows[0].json);
}

const STATUS: Partial<Record<ErrorKind, number>> = {
  not_found: 404,
  conflict: 409,
  version_conflict: 409,
  precondition: 422,
};

/** A service function's error (a kit AppError) answered with the gateway's status; others rethrown. */
export function sendDomainError(reply: FastifyReply, err: unknown): FastifyReply {
  if (!isAppError(err)) throw err;
  return reply.code(STATUS[err.kind] ?? 400).send([{ summary: err.summary, code: err.code }]);
}
