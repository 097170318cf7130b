/**
 * POST /api/categories/search against an oracle computed in the test: every query field and
 * operator, and/or, every sort field in both directions, cursor paging forward and backward over
 * 130 categories without gaps or duplicates, withTotal, and the 400s of bad searches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type System, startSystem } from "../../support/system.ts";

interface Cat {
  id: string;
  tenantCategoryId?: string;
  nameLocalized: Record<string, string>;
  customAttributes?: Record<string, unknown>;
  created: string;
  lastModified: string;
  version: number;
}

const N = 130;
const pad = (i: number) => String(i).padStart(3, "0");
let sys: System;
let api: ReturnType<System["as"]>;
let all: Cat[];

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("searcher"));
  for (let i = 0; i < N; i++) {
    const body: Record<string, unknown> = {
      nameLocalized: { en_US: `Name ${pad(i)}`, ...(i % 2 === 0 ? { de_DE: `Name_de ${pad(i)}` } : {}) },
    };
    if (i % 10 !== 0) body.tenantCategoryId = `CAT_${pad(i)}`;
    if (i % 5 !== 0) {
      body.customAttributes = {
        rank: i % 7,
        group: ["a", "b", "c"][i % 3],
        flag: i % 2 === 0,
        since: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
      };
    }
    const res = await api("POST", "/api/categories", body);
    expect(res.status).toBe(201);
  }
  // Touch a few so lastModified order differs from creation order.
  const list = (await api("GET", "/api/categories?size=500")).body as Cat[];
  for (const c of [list[3]!, list[77]!, list[11]!]) {
    expect((await api("PUT", `/api/categories/${c.id}`, { ...c, version: c.version })).status).toBe(200);
  }
  all = (await api("GET", "/api/categories?size=500")).body;
  expect(all).toHaveLength(N);
});
afterAll(() => sys?.close());

async function search(body: Record<string, unknown>) {
  const res = await api("POST", "/api/categories/search", body);
  if (res.status !== 200) throw new Error(`search ${JSON.stringify(body)} -> ${res.status} ${res.text}`);
  return res.body as {
    categories: Cat[];
    pageInfo: { startCursor: string; endCursor: string; hasNextPage: boolean; hasPreviousPage: boolean };
    total?: number;
  };
}

/** Every match of `query`, following cursors forward. */
async function searchAll(query: unknown, sort?: unknown[]): Promise<Cat[]> {
  const out: Cat[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page = await search({ query, size: 250, ...(sort ? { sort } : {}), ...(after ? { after } : {}) });
    out.push(...page.categories);
    if (!page.pageInfo.hasNextPage) return out;
    after = page.pageInfo.endCursor;
  }
  throw new Error("too many pages");
}

const ids = (cs: Cat[]) => cs.map((c) => c.id).sort();
const names = (c: Cat) => Object.values(c.nameLocalized);

describe("query fields and operators", () => {
  const cases: [string, unknown, (c: Cat) => boolean][] = [
    ["id eq", () => ({ id: { eq: all[5]!.id } }), (c) => c.id === all[5]!.id],
    ["id notEq", () => ({ id: { notEq: all[5]!.id } }), (c) => c.id !== all[5]!.id],
    [
      "id in",
      () => ({ id: { in: [all[1]!.id, all[2]!.id, "garbage"] } }),
      (c) => c.id === all[1]!.id || c.id === all[2]!.id,
    ],
    ["id notIn", () => ({ id: { notIn: [all[1]!.id] } }), (c) => c.id !== all[1]!.id],
    ["tenantCategoryId eq", { tenantCategoryId: { eq: "CAT_007" } }, (c) => c.tenantCategoryId === "CAT_007"],
    [
      "tenantCategoryId notEq (includes those without)",
      { tenantCategoryId: { notEq: "CAT_007" } },
      (c) => c.tenantCategoryId !== "CAT_007",
    ],
    [
      "tenantCategoryId in",
      { tenantCategoryId: { in: ["CAT_001", "CAT_002", "CAT_999"] } },
      (c) => ["CAT_001", "CAT_002"].includes(c.tenantCategoryId ?? ""),
    ],
    [
      "tenantCategoryId notIn",
      { tenantCategoryId: { notIn: ["CAT_001"] } },
      (c) => c.tenantCategoryId !== "CAT_001",
    ],
    [
      "tenantCategoryId like (regex)",
      { tenantCategoryId: { like: "^CAT_0[0-2]" } },
      (c) => /^CAT_0[0-2]/.test(c.tenantCategoryId ?? ""),
    ],
    ["name eq (any locale)", { name: { eq: "Name_de 004" } }, (c) => names(c).includes("Name_de 004")],
    ["name notEq", { name: { notEq: "Name 004" } }, (c) => !names(c).includes("Name 004")],
    [
      "name in",
      { name: { in: ["Name 001", "Name_de 002"] } },
      (c) => names(c).some((n) => ["Name 001", "Name_de 002"].includes(n)),
    ],
    [
      "name notIn",
      { name: { notIn: ["Name 001", "Name 002"] } },
      (c) => !names(c).some((n) => ["Name 001", "Name 002"].includes(n)),
    ],
    ["name like", { name: { like: "de 01[0-9]$" } }, (c) => names(c).some((n) => /de 01[0-9]$/.test(n))],
    [
      "nameLocalized eq",
      { nameLocalized: { de_DE: { eq: "Name_de 010" } } },
      (c) => c.nameLocalized.de_DE === "Name_de 010",
    ],
    [
      "nameLocalized notEq",
      { nameLocalized: { de_DE: { notEq: "Name_de 010" } } },
      (c) => c.nameLocalized.de_DE !== "Name_de 010",
    ],
    [
      "nameLocalized in",
      { nameLocalized: { en_US: { in: ["Name 001", "Name 003"] } } },
      (c) => ["Name 001", "Name 003"].includes(c.nameLocalized.en_US!),
    ],
    [
      "nameLocalized notIn",
      { nameLocalized: { de_DE: { notIn: ["Name_de 000"] } } },
      (c) => c.nameLocalized.de_DE !== "Name_de 000",
    ],
    [
      "nameLocalized exists",
      { nameLocalized: { de_DE: { exists: true } } },
      (c) => "de_DE" in c.nameLocalized,
    ],
    [
      "nameLocalized not exists",
      { nameLocalized: { de_DE: { exists: false } } },
      (c) => !("de_DE" in c.nameLocalized),
    ],
    [
      "customAttributes boolean eq",
      { customAttributes: { flag: { eq: true } } },
      (c) => c.customAttributes?.flag === true,
    ],
    [
      "customAttributes boolean notEq",
      { customAttributes: { flag: { notEq: true } } },
      (c) => c.customAttributes?.flag !== true,
    ],
    [
      "customAttributes string eq",
      { customAttributes: { group: { eq: "b" } } },
      (c) => c.customAttributes?.group === "b",
    ],
    [
      "customAttributes number eq",
      { customAttributes: { rank: { eq: 3 } } },
      (c) => c.customAttributes?.rank === 3,
    ],
    [
      "customAttributes number gt",
      { customAttributes: { rank: { gt: 4 } } },
      (c) => (c.customAttributes?.rank as number) > 4,
    ],
    [
      "customAttributes number gte+lte",
      { customAttributes: { rank: { gte: 2, lte: 3 } } },
      (c) => [2, 3].includes(c.customAttributes?.rank as number),
    ],
    [
      "customAttributes number lt",
      { customAttributes: { rank: { lt: 1 } } },
      (c) => c.customAttributes?.rank === 0,
    ],
    [
      "customAttributes date gte",
      { customAttributes: { since: { gte: "2024-03-01T00:00:00Z" } } },
      (c) =>
        typeof c.customAttributes?.since === "string" &&
        (c.customAttributes.since as string) >= "2024-03-01T00:00:00.000Z",
    ],
    [
      "customAttributes date before (relative)",
      { customAttributes: { since: { before: "-P30D" } } },
      (c) => typeof c.customAttributes?.since === "string",
    ],
  ];

  it.each(cases)("%s", async (_name, query, predicate) => {
    const q = typeof query === "function" ? (query as () => unknown)() : query;
    const expected = all.filter(predicate);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(await searchAll(q))).toEqual(ids(expected));
  });

  it("created and lastModified are no category query fields (the platform lists none)", async () => {
    const res = await api("POST", "/api/categories/search", { query: { created: { gt: all[0]!.created } } });
    expect(res.status).toBe(400);
  });

  it("and / or combine, also nested", async () => {
    const q = {
      or: [
        { customAttributes: { group: { eq: "a" } } },
        { and: [{ tenantCategoryId: { like: "^CAT_1" } }, { nameLocalized: { de_DE: { exists: true } } }] },
      ],
      and: [{ customAttributes: { rank: { lte: 4 } } }],
    };
    const expected = all.filter(
      (c) =>
        (c.customAttributes?.group === "a" ||
          (/^CAT_1/.test(c.tenantCategoryId ?? "") && "de_DE" in c.nameLocalized)) &&
        (c.customAttributes?.rank as number) <= 4,
    );
    expect(expected.length).toBeGreaterThan(3);
    expect(ids(await searchAll(q))).toEqual(ids(expected));
  });

  it("an empty query matches everything; withTotal counts all matches", async () => {
    const page = await search({ query: {}, size: 10, options: { withTotal: true } });
    expect(page.categories).toHaveLength(10);
    expect(page.total).toBe(N);
    expect(
      (
        await search({
          query: { customAttributes: { group: { eq: "c" } } },
          size: 1,
          options: { withTotal: true },
        })
      ).total,
    ).toBe(all.filter((c) => c.customAttributes?.group === "c").length);
    expect((await search({ query: {}, size: 1 })).total).toBeUndefined();
  });
});

type SortKey = { field: string; key?: string; value: (c: Cat) => unknown };
const SORTS: SortKey[] = [
  { field: "created", value: (c) => c.created },
  { field: "lastModified", value: (c) => c.lastModified },
  { field: "id", value: (c) => c.id },
  { field: "name", value: (c) => c.nameLocalized.en_US },
  { field: "tenantCategoryId", value: (c) => c.tenantCategoryId ?? null },
  {
    field: "customAttributes",
    key: "rank",
    value: (c) => (c.customAttributes?.rank as number | undefined) ?? null,
  },
];

/** Postgres order: nulls last ascending, first descending; ties by id in the same direction. */
function oracle(s: SortKey, dir: "ASC" | "DESC"): string[] {
  const sign = dir === "ASC" ? 1 : -1;
  const cmp = (a: unknown, b: unknown) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : (a as never) < (b as never) ? -1 : 1;
  return [...all]
    .sort((x, y) => sign * (cmp(s.value(x), s.value(y)) || (x.id < y.id ? -1 : 1)))
    .map((c) => c.id);
}

describe("sorting and cursor paging", () => {
  for (const s of SORTS) {
    for (const dir of ["ASC", "DESC"] as const) {
      const sortEntry = s.key ? { [s.field]: { [s.key]: dir } } : { [s.field]: dir };
      it(`${s.field}${s.key ? `.${s.key}` : ""} ${dir}: forward and backward pages cover everything once, in order`, async () => {
        const expected = oracle(s, dir);
        const forward: string[] = [];
        let page = await search({ query: {}, sort: [sortEntry], size: 17 });
        expect(page.pageInfo.hasPreviousPage).toBe(false);
        forward.push(...page.categories.map((c) => c.id));
        while (page.pageInfo.hasNextPage) {
          page = await search({ query: {}, sort: [sortEntry], size: 17, after: page.pageInfo.endCursor });
          expect(page.pageInfo.hasPreviousPage).toBe(true);
          forward.push(...page.categories.map((c) => c.id));
        }
        expect(forward).toEqual(expected);

        const backward: string[] = [];
        page = await search({ query: {}, sort: [sortEntry], last: 13 });
        expect(page.pageInfo.hasNextPage).toBe(false);
        backward.unshift(...page.categories.map((c) => c.id));
        while (page.pageInfo.hasPreviousPage) {
          page = await search({ query: {}, sort: [sortEntry], last: 13, before: page.pageInfo.startCursor });
          expect(page.pageInfo.hasNextPage).toBe(true);
          backward.unshift(...page.categories.map((c) => c.id));
        }
        expect(backward).toEqual(expected);
      });
    }
  }

  it("goes back from the middle to exactly the previous page", async () => {
    const sort = [{ name: "ASC" }];
    const p1 = await search({ query: {}, sort, size: 20 });
    const p2 = await search({ query: {}, sort, size: 20, after: p1.pageInfo.endCursor });
    const back = await search({ query: {}, sort, last: 20, before: p2.pageInfo.startCursor });
    expect(back.categories.map((c) => c.id)).toEqual(p1.categories.map((c) => c.id));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });
  });

  it("pages within a filter", async () => {
    const q = { customAttributes: { group: { eq: "a" } } };
    const expected = all
      .filter((c) => c.customAttributes?.group === "a")
      .map((c) => c.id)
      .sort();
    const got: string[] = [];
    let page = await search({ query: q, size: 7 });
    got.push(...page.categories.map((c) => c.id));
    while (page.pageInfo.hasNextPage) {
      page = await search({ query: q, size: 7, after: page.pageInfo.endCursor });
      got.push(...page.categories.map((c) => c.id));
    }
    expect(got).toEqual(expected);
  });

  it("defaults to 20 per page", async () => {
    expect((await search({ query: {} })).categories).toHaveLength(20);
  });
});

describe("bad searches (400)", () => {
  const bad = async (body: unknown) => {
    const res = await api("POST", "/api/categories/search", body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body[0]).toMatchObject({ summary: expect.any(String), code: expect.any(String) });
    return res.body[0];
  };

  it.each([
    ["unknown query field", { query: { color: { eq: "red" } } }],
    ["unknown query field inside or", { query: { or: [{ color: { eq: "red" } }] } }],
    ["unknown operator", { query: { tenantCategoryId: { gt: "x" } } }],
    ["like on a field without like", { query: { id: { like: "x" } } }],
    ["wrong value type", { query: { tenantCategoryId: { eq: 5 } } }],
    ["in with more than 25 values", { query: { id: { in: Array.from({ length: 26 }, (_, i) => `v${i}`) } } }],
    ["missing query", { size: 5 }],
    ["size above 250", { query: {}, size: 251 }],
    ["last 0", { query: {}, last: 0 }],
    ["two sort entries", { query: {}, sort: [{ created: "ASC" }, { id: "ASC" }] }],
    ["a sort entry with two fields", { query: {}, sort: [{ created: "ASC", id: "ASC" }] }],
    ["unknown sort field", { query: {}, sort: [{ color: "ASC" }] }],
    ["unknown sort direction", { query: {}, sort: [{ created: "UP" }] }],
    ["after with before", { query: {}, after: "x", before: "y" }],
    ["size with last", { query: {}, size: 5, last: 5 }],
    ["unknown top-level property", { query: {}, page: 2 }],
    ["a date that is no date", { query: { created: { gt: "yesterday" } } }],
    ["a relative date that is no duration", { query: { created: { after: "P1X" } } }],
  ])("%s", async (_name, body) => {
    await bad(body);
  });

  it("a cursor that was not issued", async () => {
    expect((await bad({ query: {}, after: "bm90LWEtY3Vyc29y" })).code).toBe("INVALID_CURSOR");
  });

  it("a cursor of another sort", async () => {
    const page = await search({ query: {}, sort: [{ name: "ASC" }], size: 2 });
    expect((await bad({ query: {}, sort: [{ created: "ASC" }], after: page.pageInfo.endCursor })).code).toBe(
      "CURSOR_SORT_MISMATCH",
    );
  });

  it("a malformed regex", async () => {
    expect((await bad({ query: { name: { like: "([unclosed" } } })).code).toBe("INVALID_REGEX");
  });
});
