/** readSnapshot: statements that must agree (a page and its total) see one snapshot. */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../testing/db.ts";
import { createSqlPool, type Db, type SqlPool } from "./sql.ts";
import { inTransaction, readSnapshot } from "./tx.ts";

const adminUrl = inject("adminUrl");
const name = `fop_t_snapshot_${randomBytes(4).toString("hex")}`;
let db: SqlPool;

beforeAll(async () => {
  db = createSqlPool(await createDatabase(adminUrl, name), { max: 3 });
  await db.query({ text: "create table item (id int primary key)", params: [] });
});
afterAll(async () => {
  await db?.end();
  await dropDatabase(adminUrl, name);
});

const count = async (d: Db) =>
  (await d.query<{ n: number }>({ text: "select count(*)::int as n from item", params: [] }))[0]!.n;
let next = 0;
const insertElsewhere = () => db.query({ text: "insert into item values ($1)", params: [++next] });

it("sees no write committed between its statements; the pool's statements do", async () => {
  const inside = await readSnapshot(db, async (tx) => {
    const before = await count(tx);
    await insertElsewhere();
    return [before, await count(tx)];
  });
  expect(inside[0]).toBe(inside[1]);
  const before = await count(db);
  await insertElsewhere();
  expect(await count(db)).toBe(before + 1);
});

it("is read-only, and runs on the transaction it is given", async () => {
  await expect(
    readSnapshot(db, (tx) => tx.query({ text: "insert into item values (1000)", params: [] })),
  ).rejects.toThrow();
  const n = await inTransaction(db, async (tx) => {
    await tx.query({ text: "insert into item values (2000)", params: [] });
    return readSnapshot(tx, count); // sees its own transaction's insert
  });
  expect(n).toBe(await count(db));
});
