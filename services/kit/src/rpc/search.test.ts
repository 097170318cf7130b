import { create } from "@bufbuild/protobuf";
import { SearchRequestSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { describe, expect, it } from "vitest";
import { pageOut, searchParams } from "./search.ts";

describe("search messages", () => {
  it("searchParams passes with_cursors on", () => {
    expect(searchParams(create(SearchRequestSchema, { withCursors: true })).withCursors).toBe(true);
    expect(searchParams(create(SearchRequestSchema, {})).withCursors).toBe(false);
  });

  it("pageOut keeps the page's cursors for the PageInfo message", () => {
    const pageInfo = {
      startCursor: "a",
      endCursor: "b",
      hasNextPage: false,
      hasPreviousPage: false,
      cursors: ["a", "b"],
    };
    expect(pageOut({ rows: [1, 2], pageInfo })).toEqual({ pageInfo, total: undefined });
  });
});
