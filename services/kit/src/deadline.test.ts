import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSqlPool, query, type SqlPool } from "./db/sql.ts";
import { inTransaction } from "./db/tx.ts";
import { checkDeadline, outgoingDeadline, runInCall, serverDeadline } from "./deadline.ts";
import { createDatabase, dropDatabase } from "./testing/db.ts";

const code = async (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: { code?: string }) => err.code,
  );

describe("deadline arithmetic", () => {
  it("a server keeps a margin: a tenth of what is left, 50 ms to 1 s", () => {
    expect(serverDeadline(String(10_000 + 20_000), 10_000)).toBe(30_000 - 1000);
    expect(serverDeadline(String(10_000 + 2000), 10_000)).toBe(12_000 - 200);
    expect(serverDeadline(String(10_000 + 100), 10_000)).toBe(10_100 - 50);
    for (const bad of [undefined, null, "", "abc", "-5", "1.5", "1e400"])
      expect(serverDeadline(bad)).toBeUndefined();
  });

  it("an outgoing call takes the earlier of its own timeout and the call it is made for", () => {
    expect(outgoingDeadline(500, 1000)).toBe(1500);
    expect(outgoingDeadline(undefined, 1000)).toBeUndefined();
    runInCall({ deadline: 1200, signal: undefined }, () => {
      expect(outgoingDeadline(500, 1000)).toBe(1200);
      expect(outgoingDeadline(100, 1000)).toBe(1100);
      expect(outgoingDeadline(undefined, 1000)).toBe(1200);
    });
  });

  it("checkDeadline throws past the deadline or once the caller gave up, and outside calls never", () => {
    expect(() => checkDeadline(5)).not.toThrow();
    runInCall({ deadline: 100, signal: undefined }, () => {
      expect(() => checkDeadline(99)).not.toThrow();
      expect(() => checkDeadline(100)).toThrow(
        expect.objectContaining({ kind: "unavailable", code: "DEADLINE_EXCEEDED" }),
      );
    });
    const gaveUp = new AbortController();
    gaveUp.abort();
    runInCall({ deadline: undefined, signal: gaveUp.signal }, () => {
      expect(() => checkDeadline()).toThrow(expect.objectContaining({ code: "DEADLINE_EXCEEDED" }));
    });
  });
});

describe("inTransaction and the call's deadline (real Postgres)", () => {
  const adminUrl = inject("adminUrl");
  const name = `fop_t_deadline_${randomBytes(4).toString("hex")}`;
  let db: SqlPool;
  beforeAll(async () => {
    const url = await createDatabase(adminUrl, name);
    db = createSqlPool(url, { max: 2 });
    await query(db, { text: "create table t (v text)", params: [] });
  });
  afterAll(async () => {
    await db?.end();
    await dropDatabase(adminUrl, name);
  });
  const rows = async () =>
    (await query<{ v: string }>(db, { text: "select v from t", params: [] })).map((r) => r.v);
  const insert = (v: string, thenWaitMs = 0) =>
    inTransaction(db, async (tx) => {
      await query(tx, { text: "insert into t values ($1)", params: [v] });
      await new Promise((r) => setTimeout(r, thenWaitMs));
    });

  it("commits inside the deadline", async () => {
    await runInCall({ deadline: Date.now() + 5000, signal: undefined }, () => insert("in time"));
    expect(await rows()).toContain("in time");
  });

  it("does not begin past the deadline", async () => {
    const late = runInCall({ deadline: Date.now() - 1, signal: undefined }, () => insert("never begun"));
    expect(await code(late)).toBe("DEADLINE_EXCEEDED");
    expect(await rows()).not.toContain("never begun");
  });

  it("rolls back instead of committing when the deadline passed while it worked", async () => {
    const late = runInCall({ deadline: Date.now() + 50, signal: undefined }, () => insert("too late", 150));
    expect(await code(late)).toBe("DEADLINE_EXCEEDED");
    expect(await rows()).not.toContain("too late");
  });

  it("rolls back when the caller gives up while it works", async () => {
    const caller = new AbortController();
    const work = runInCall({ deadline: undefined, signal: caller.signal }, () => insert("abandoned", 150));
    setTimeout(() => caller.abort(), 30);
    expect(await code(work)).toBe("DEADLINE_EXCEEDED");
    expect(await rows()).not.toContain("abandoned");
  });
});
