/**
 * translateDbError: a database that cannot be reached or is not taking work is the caller's 503
 * (`unavailable`, retry), as real pg errors show it; values and unique violations keep their meaning.
 * A connection the server ends while a transaction holds it fails that transaction, not the process.
 */
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { freePort } from "../dev/infra.ts";
import { isAppError } from "../errors.ts";
import { createSqlPool } from "./sql.ts";
import { inTransaction, readSnapshot, translateDbError } from "./tx.ts";

const kindOf = (err: unknown) => {
  const t = translateDbError(err);
  return isAppError(t) ? { kind: t.kind, code: t.code } : "untranslated";
};

async function errorOf(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error("no error");
}

describe("a database that cannot take the work is 'unavailable'", () => {
  it("nothing listening (ECONNREFUSED)", async () => {
    const port = await freePort();
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    const err = await errorOf(() => pool.query("select 1"));
    await pool.end();
    expect(kindOf(err)).toEqual({ kind: "unavailable", code: "DATABASE_UNAVAILABLE" });
  });

  it("the server ends the connection (57P01, as a shutdown or restart does), and the client is not queryable after", async () => {
    const client = new pg.Client({ connectionString: inject("adminUrl") });
    client.on("error", () => {});
    await client.connect();
    const killer = new pg.Client({ connectionString: inject("adminUrl") });
    await killer.connect();
    const terminated = errorOf(() => client.query("select pg_sleep(5)"));
    await new Promise((r) => setTimeout(r, 200));
    await killer.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where query = 'select pg_sleep(5)' and pid <> pg_backend_pid()",
    );
    await killer.end();
    const err = await terminated;
    expect((err as { code?: string }).code).toBe("57P01");
    expect(kindOf(err)).toEqual({ kind: "unavailable", code: "DATABASE_UNAVAILABLE" });
    expect(kindOf(await errorOf(() => client.query("select 1")))).toEqual({
      kind: "unavailable",
      code: "DATABASE_UNAVAILABLE",
    });
  });

  it("the other SQLSTATEs of an unavailable server: starting up, crashed, too many connections, connection exceptions", () => {
    for (const code of ["57P03", "57P02", "53300", "08006", "08001"])
      expect(kindOf(Object.assign(new Error("x"), { code })), code).toMatchObject({ kind: "unavailable" });
  });

  it("errors that are not about reaching the database keep their meaning or stay unexpected", async () => {
    expect(kindOf(Object.assign(new Error("dup"), { code: "23505" }))).toMatchObject({ kind: "conflict" });
    expect(kindOf(Object.assign(new Error("bad"), { code: "22P02" }))).toMatchObject({ kind: "invalid" });
    expect(kindOf(Object.assign(new Error("syntax"), { code: "42601" }))).toBe("untranslated");
    expect(kindOf(new Error("something else"))).toBe("untranslated");
  });
});

/** Ends the backend `pid` as a Postgres shutdown does (57P01), and waits until it has gone. */
async function terminate(pid: number): Promise<void> {
  const admin = new pg.Client({ connectionString: inject("adminUrl") });
  await admin.connect();
  try {
    await admin.query("select pg_terminate_backend($1)", [pid]);
    for (let i = 0; i < 100; i++) {
      const { rowCount } = await admin.query("select 1 from pg_stat_activity where pid = $1", [pid]);
      if (!rowCount) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await admin.end();
  }
  // The client reads the server's goodbye and the closed socket.
  await new Promise((r) => setTimeout(r, 300));
}

describe("a connection the server ends while a transaction holds it (a Postgres restart)", () => {
  // Before: pg-pool listens for a client's errors only while it is idle, so the checked-out client's
  // 'error' event had no listener and crashed the process (the chaos run's restart-postgres fault).
  const backendPid = async (tx: { query<R>(sql: { text: string; params: unknown[] }): Promise<R[]> }) =>
    (await tx.query<{ pid: number }>({ text: "select pg_backend_pid() as pid", params: [] }))[0]!.pid;

  it("fails that transaction as 'unavailable', not the process; the pool goes on with a new connection", async () => {
    const db = createSqlPool(inject("adminUrl"), { max: 1 });
    try {
      const err = await errorOf(() =>
        inTransaction(db, async (tx) => {
          // Between two statements (a handler awaiting something else): idle, but checked out.
          await terminate(await backendPid(tx));
          await tx.query({ text: "select 1", params: [] });
        }),
      );
      expect(kindOf(err)).toEqual({ kind: "unavailable", code: "DATABASE_UNAVAILABLE" });
      expect(await db.query({ text: "select 1 as ok", params: [] })).toEqual([{ ok: 1 }]);
    } finally {
      await db.end();
    }
  });

  it("the same for a snapshot's connection and for one checked out by hand", async () => {
    const db = createSqlPool(inject("adminUrl"), { max: 1 });
    try {
      const err = await errorOf(() =>
        readSnapshot(db, async (tx) => {
          await terminate(await backendPid(tx));
          await tx.query({ text: "select 1", params: [] });
        }),
      );
      expect(kindOf(err)).toEqual({ kind: "unavailable", code: "DATABASE_UNAVAILABLE" });
      const client = await db.pool.connect();
      const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
      await terminate(rows[0]!.pid);
      client.release();
      expect(await db.query({ text: "select 1 as ok", params: [] })).toEqual([{ ok: 1 }]);
    } finally {
      await db.end();
    }
  });
});
