import { SortDirection } from "@fop/proto/fop/common/v1/common_pb.js";
import { describe, expect, it } from "vitest";
import { toSearchRequest } from "./search.ts";

describe("toSearchRequest", () => {
  it("maps plain and map-valued sort entries", () => {
    expect(toSearchRequest({ query: {}, sort: [{ created: "DESC" }] }).sort).toEqual({
      field: "created",
      key: "",
      direction: SortDirection.DESC,
    });
    expect(toSearchRequest({ query: {}, sort: [{ customAttributes: { rank: "ASC" } }] }).sort).toEqual({
      field: "customAttributes",
      key: "rank",
      direction: SortDirection.ASC,
    });
    expect(
      toSearchRequest({ query: { a: 1 }, last: 5, before: "c", options: { withTotal: true } }),
    ).toMatchObject({ last: 5, before: "c", withTotal: true, size: 0 });
  });
});
