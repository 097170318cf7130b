/**
 * translateDbError: a database that cannot be reached or is not taking work is the caller's 503
 * (`unavailable`, retry), as real pg errors show it; values and unique violations keep their meaning.
 */
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { isAppError } from "../errors.ts";
import { freePort } from "../infra.ts";
import { createPgPool } from "./sql.ts";
import { translateDbError } from "./tx.ts";

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

describe("a pool whose connection the server ends between two statements (createPgPool)", () => {
  it("does not end the process: the client's next statement fails, the pool drops it, the next call works", async () => {
    const pool = createPgPool({ connectionString: inject("adminUrl"), max: 1 });
    const client = await pool.connect();
    await client.query("begin");
    const [{ pid }] = (await client.query<{ pid: number }>("select pg_backend_pid() as pid")).rows as [
      { pid: number },
    ];
    // Checked out, between statements (as the outbox relay is while it publishes), the server ends it.
    const killer = new pg.Client({ connectionString: inject("adminUrl") });
    await killer.connect();
    await killer.query("select pg_terminate_backend($1)", [pid]);
    await killer.end();
    await new Promise((r) => setTimeout(r, 300)); // the 'error' event arrives meanwhile
    const next = await errorOf(() => client.query("select 1"));
    expect(kindOf(next)).toEqual({ kind: "unavailable", code: "DATABASE_UNAVAILABLE" });
    client.release();
    expect((await pool.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });
});
