/**
 * What a service's database needs before the service starts, done with an admin connection: the
 * service's own role and the schema it owns, and the shared extensions. The db-setup Job
 * (deploy/local/src/db-setup.ts: Kubernetes and the launcher) and the tests' databases
 * (testing/db.ts) set every service up with it.
 */
import pg from "pg";
import { serviceRole } from "./orm.ts";

const IDENT = /^[a-z][a-z0-9_]{0,40}$/;
/** `s` as a quoted SQL identifier; fails unless it is a plain lowercase name (no injection). */
export const ident = (s: string) => {
  if (!IDENT.test(s)) throw new Error(`not a safe identifier: ${s}`);
  return `"${s}"`;
};

/** Runs `fn` on a connection of its own to `url`, closed afterwards. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const ignoreDuplicate = (err: unknown) => {
  const code = (err as { code?: string }).code;
  // duplicate_object, unique_violation (concurrent CREATE ROLE), duplicate_schema
  if (code !== "42710" && code !== "23505" && code !== "42P06") throw err;
};

/**
 * Creates (idempotently) the service's login role and a schema it owns, so that the service's
 * migrations can only touch its own schema (STACK.md trap 5), plus the extensions indexes use (btree_gin for multi-column GIN indexes, pg_trgm for regex/like search).
 */
export async function ensureServiceSchema(adminUrl: string, service: string): Promise<void> {
  const role = ident(serviceRole(service));
  const schema = ident(service);
  await withClient(adminUrl, async (c) => {
    await c.query(`create role ${role} login`).catch(ignoreDuplicate);
    await c.query(`create schema if not exists ${schema} authorization ${role}`).catch(ignoreDuplicate);
    // Per database, not for the role as a whole: test files set up their own databases in parallel,
    // and a role-wide setting is one shared catalog row they would all race to write.
    const { rows } = await c.query<{ db: string }>("select current_database() as db");
    await c.query(`alter role ${role} in database "${rows[0]!.db}" set search_path = ${schema}, public`);
    await c.query("create extension if not exists btree_gin with schema public").catch(ignoreDuplicate);
    await c.query("create extension if not exists pg_trgm with schema public").catch(ignoreDuplicate);
  });
}
