/** runSearch's per-row cursors (GraphQL edges) against real Postgres, for an ASC and a DESC sort. */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createSqlPool, type SqlPool } from "../db/sql.ts";
import { newId } from "../ids.ts";
import { createDatabase, dropDatabase } from "../testing/db.ts";
import { cursorCodec } from "./cursor.ts";
import { runSearch, type SearchParams, type SearchResource } from "./keyset.ts";

const adminUrl = inject("adminUrl");
const name = `fop_t_keyset_${randomBytes(4).toString("hex")}`;
const cursors = cursorCodec("keyset test");
const resource: SearchResource = {
  table: "public.item",
  select: "t.id, t.name, t.created",
  fields: { name: { kind: "string", column: "t.name", ops: ["eq", "in", "like"] } },
  sorts: {
    name: { expr: "t.name", type: "text", nullable: true },
    created: { expr: "t.created", type: "timestamptz", nullable: false },
  },
};
type Row = { id: string; name: string | null; created: Date };

let db: SqlPool;

beforeAll(async () => {
  db = createSqlPool(await createDatabase(adminUrl, name), { max: 2 });
  await db.query({
    text: "create table item (tenant_id text not null, id uuid primary key, name text, created timestamptz not null)",
    params: [],
  });
  // Duplicate and null sort values, so the id tie-breaker and the null ordering take part.
  const names = ["b", null, "a", "c", "b", null, "a", "d", "c"];
  for (const [i, n] of names.entries()) {
    await db.query({
      text: "insert into item values ($1, $2::uuid, $3, $4::timestamptz)",
      params: ["t1", newId(), n, new Date(Date.UTC(2026, 0, 1, 0, 0, i % 4)).toISOString()],
    });
  }
  await db.query({
    text: "insert into item values ('t2', $1::uuid, 'a', now())",
    params: [newId()],
  });
});
afterAll(async () => {
  await db?.end();
  await dropDatabase(adminUrl, name);
});

const search = (p: SearchParams) => runSearch<Row>(db, "t1", resource, p, { cursors });
const ids = (rows: Row[]) => rows.map((r) => r.id);

describe("runSearch cursors", () => {
  it("are absent unless asked for", async () => {
    const page = await search({ size: 3 });
    expect(page.rows).toHaveLength(3);
    expect(page.pageInfo.cursors).toBeUndefined();
    expect(Object.keys(page.pageInfo)).not.toContain("cursors");
    const off = await search({ size: 3, withCursors: false });
    expect(off.pageInfo.cursors).toBeUndefined();
  });

  it("an empty page has no cursors", async () => {
    const page = await search({ query: { name: { eq: "none" } }, withCursors: true });
    expect(page.rows).toEqual([]);
    expect(page.pageInfo.cursors).toEqual([]);
  });

  describe.each([
    ["name ASC", { field: "name", direction: "ASC" as const }],
    ["created DESC", { field: "created", direction: "DESC" as const }],
    ["name DESC", { field: "name", direction: "DESC" as const }],
  ])("sorted by %s", (_, sort) => {
    it("one cursor per row, in page order; after/before each continue after/before that row", async () => {
      const all = await search({ sort, size: 250, withCursors: true });
      expect(all.rows).toHaveLength(9);
      const cs = all.pageInfo.cursors!;
      expect(cs).toHaveLength(all.rows.length);
      expect(new Set(cs).size).toBe(cs.length);
      expect(cs[0]).toBe(all.pageInfo.startCursor);
      expect(cs.at(-1)).toBe(all.pageInfo.endCursor);
      for (const [i, c] of cs.entries()) {
        expect(cursors.decode(c, "/after").id).toBe(all.rows[i]!.id);
        const after = await search({ sort, after: c, size: 250 });
        expect(ids(after.rows), `after cursors[${i}]`).toEqual(ids(all.rows.slice(i + 1)));
        const before = await search({ sort, before: c, last: 250 });
        expect(ids(before.rows), `before cursors[${i}]`).toEqual(ids(all.rows.slice(0, i)));
      }
    });

    it("forward and backward pages carry the same cursors as the rows had in the full list", async () => {
      const all = await search({ sort, size: 250, withCursors: true });
      const cs = all.pageInfo.cursors!;
      const forward = await search({ sort, after: cs[1], size: 3, withCursors: true });
      expect(ids(forward.rows)).toEqual(ids(all.rows.slice(2, 5)));
      expect(forward.pageInfo.cursors).toEqual(cs.slice(2, 5));
      // Backward pages are scanned in reverse and turned back: cursors follow the page order.
      const backward = await search({ sort, before: cs[7], last: 3, withCursors: true });
      expect(ids(backward.rows)).toEqual(ids(all.rows.slice(4, 7)));
      expect(backward.pageInfo.cursors).toEqual(cs.slice(4, 7));
      expect(backward.pageInfo).toMatchObject({
        startCursor: cs[4],
        endCursor: cs[6],
        hasNextPage: true,
        hasPreviousPage: true,
      });
      const tail = await search({ sort, last: 2, withCursors: true });
      expect(tail.pageInfo.cursors).toEqual(cs.slice(7));
    });
  });
});

describe("runSearch startAfterId (the platform's deprecated paging)", () => {
  describe.each([
    ["id (no sort)", undefined],
    ["name ASC", { field: "name", direction: "ASC" as const }],
    ["name DESC", { field: "name", direction: "DESC" as const }],
    ["created DESC", { field: "created", direction: "DESC" as const }],
  ])("sorted by %s", (_, sort) => {
    it("continues after, excluding, that row in the sort's order, as after with its cursor", async () => {
      const all = await search({ sort, size: 250 });
      expect(all.rows).toHaveLength(9);
      for (const [i, row] of all.rows.entries()) {
        const page = await search({ sort, startAfterId: row.id, size: 3 });
        expect(ids(page.rows), `after row ${i}`).toEqual(ids(all.rows.slice(i + 1, i + 4)));
        expect(page.pageInfo.hasPreviousPage).toBe(true);
        expect(page.pageInfo.hasNextPage).toBe(i + 4 < all.rows.length);
      }
      // Combined with the query: the anchor itself need not match it.
      const bs = await search({ sort, query: { name: { in: ["a", "b"] } }, size: 250 });
      const anchor = all.rows.find((r) => r.name === null)!;
      const rest = await search({ sort, query: { name: { in: ["a", "b"] } }, startAfterId: anchor.id });
      const from = all.rows.indexOf(anchor);
      expect(ids(rest.rows)).toEqual(ids(bs.rows).filter((id) => ids(all.rows).indexOf(id) > from));
    });

    it("the last row's id gives an empty page whose cursors continue from it", async () => {
      const all = await search({ sort, size: 250 });
      const page = await search({ sort, startAfterId: all.rows.at(-1)!.id });
      expect(page.rows).toEqual([]);
      expect(page.pageInfo.hasNextPage).toBe(false);
      const again = await search({ sort, after: page.pageInfo.endCursor });
      expect(again.rows).toEqual([]);
    });
  });

  it("an id of no row of the tenant (unknown, another tenant's, no uuid) is a 400 naming startAfterId", async () => {
    const other = await runSearch<Row>(db, "t2", resource, {}, { cursors });
    for (const id of [newId(), other.rows[0]!.id, "x"]) {
      await expect(search({ startAfterId: id })).rejects.toMatchObject({
        code: "UNKNOWN_START_AFTER_ID",
        field: "/startAfterId",
      });
    }
  });

  it("is forward paging: not with after, before or last", async () => {
    const { rows } = await search({});
    const c = (await search({ size: 1 })).pageInfo.endCursor;
    for (const extra of [{ after: c }, { before: c }, { last: 2 }]) {
      await expect(search({ startAfterId: rows[0]!.id, ...extra })).rejects.toMatchObject({
        code: "INVALID_PAGINATION",
      });
    }
  });
});
