import { CategorySearchPayload } from "@fop/contracts/rest/categories";
import { AppError } from "@fop/kit/errors";
import { bodyValidator } from "@fop/kit/schemas/validators";
import { describe, expect, it } from "vitest";
import { listConnection, listPage, searchBody, searchConnection } from "./connections.ts";

const validate = bodyValidator(CategorySearchPayload);
const fails = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error("did not fail");
};

describe("search connection arguments", () => {
  it("map to the REST search body", () => {
    expect(
      searchBody(
        { first: 5, after: "c", filter: { name: { like: "x" } }, sort: [{ name: "DESC" }] },
        validate,
      ),
    ).toEqual({
      query: { name: { like: "x" } },
      sort: [{ name: "DESC" }],
      after: "c",
      size: 5,
    });
    expect(searchBody({ last: 7, before: "c" }, validate)).toEqual({ query: {}, before: "c", last: 7 });
  });

  it("are checked like REST, errors naming the argument", () => {
    expect(fails(() => searchBody({ first: 251 }, validate))).toMatchObject({
      code: "INVALID_PAGE_SIZE",
      field: "first",
    });
    expect(fails(() => searchBody({ first: 1, last: 1 }, validate))).toMatchObject({
      code: "INVALID_PAGINATION",
    });
    expect(fails(() => searchBody({ first: 1, before: "c" }, validate))).toMatchObject({
      code: "INVALID_PAGINATION",
    });
    const bad = fails(() => searchBody({ filter: { name: { like: "x".repeat(300) } } }, validate));
    expect(bad).toBeInstanceOf(AppError);
    expect(bad.description).toMatch(/^filter\/name\/like /);
  });

  it("a page: one cursor per edge, page info as the service says", () => {
    const c = searchConnection(
      [{ id: "a" }, { id: "b" }],
      {
        startCursor: "",
        endCursor: "",
        hasNextPage: true,
        hasPreviousPage: false,
        cursors: ["ca", "cb"],
      } as never,
      9n,
    );
    expect(c).toEqual({
      edges: [
        { cursor: "ca", node: { id: "a" } },
        { cursor: "cb", node: { id: "b" } },
      ],
      pageInfo: { startCursor: "ca", endCursor: "cb", hasNextPage: true, hasPreviousPage: false },
      totalCount: 9,
    });
    expect(searchConnection([], undefined, undefined).pageInfo).toEqual({
      startCursor: null,
      endCursor: null,
      hasNextPage: false,
      hasPreviousPage: false,
    });
  });
});

describe("list connections", () => {
  const id = (n: number) => `01900000-0000-7000-8000-00000000000${n}`;
  it("ask one more than `first` to know whether more follow; cursors resume after their node", () => {
    const page = listPage({ first: 2 });
    expect(page).toEqual({ size: 3, startAfterId: "", first: 2 });
    const c = listConnection([{ id: id(1) }, { id: id(2) }, { id: id(3) }], page, 3n);
    expect(c.edges.map((e) => e.node.id)).toEqual([id(1), id(2)]);
    expect(c.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(listPage({ first: 2, after: c.pageInfo.endCursor })).toMatchObject({ startAfterId: id(2) });
    expect(
      listConnection([{ id: id(3) }], listPage({ first: 2, after: c.pageInfo.endCursor }), 3n).pageInfo,
    ).toMatchObject({
      hasNextPage: false,
      hasPreviousPage: true,
    });
  });

  it("refuse a cursor they did not issue and a page over 250", () => {
    expect(fails(() => listPage({ after: "bm9wZQ" }))).toMatchObject({
      code: "INVALID_CURSOR",
      field: "after",
    });
    expect(fails(() => listPage({ first: 0 }))).toMatchObject({ code: "INVALID_PAGE_SIZE" });
    expect(fails(() => listPage({ first: 251 }))).toMatchObject({ code: "INVALID_PAGE_SIZE" });
    expect(listPage({ first: 250 }).size).toBe(251);
  });
});
