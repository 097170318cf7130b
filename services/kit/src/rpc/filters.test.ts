import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { readFilters } from "./filters.ts";

/** A list's filter declaration, as @fop/contracts' ListFilters writes one. */
const Filters = Type.Object(
  {
    status: Type.Optional(
      Type.Array(Type.Union([Type.Literal("OPEN"), Type.Literal("CLOSED")]), { maxItems: 2 }),
    ),
    name: Type.Optional(Type.String({ maxLength: 5 })),
    from: Type.Optional(Type.String({ format: "date-time" })),
    anonymized: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const refusal = (filters: Record<string, unknown>) => {
  try {
    readFilters(Filters, filters as never);
  } catch (e) {
    if (e instanceof AppError)
      return { kind: e.kind, code: e.code, field: e.field, description: e.description };
    throw e;
  }
  throw new Error("accepted");
};

describe("readFilters: a list RPC's filters read with the list's declaration", () => {
  it("takes what the declaration allows, as given; no filters is no filter", () => {
    const given = { status: ["OPEN"], name: "abc", from: "2026-01-02T03:04:05Z", anonymized: false };
    expect(readFilters(Filters, given)).toEqual(given);
    expect(readFilters(Filters, undefined)).toEqual({});
  });

  it("refuses an unknown filter, naming it (a closed declaration, as REST's query)", () => {
    expect(refusal({ evil: "<script>" })).toEqual({
      kind: "invalid",
      code: "INVALID_FILTER",
      field: "evil",
      description: "evil: is not a filter of this list.",
    });
  });

  it("refuses a value outside the declaration (enum, length, count, format, type), naming the filter", () => {
    expect(refusal({ status: ["PAUSED"] })).toMatchObject({ code: "INVALID_FILTER", field: "status" });
    expect(refusal({ status: ["OPEN", "CLOSED", "OPEN"] })).toMatchObject({ field: "status" });
    expect(refusal({ name: "toolong" })).toMatchObject({ field: "name" });
    expect(refusal({ from: "not a date" })).toMatchObject({ field: "from" });
    expect(refusal({ anonymized: "yes" })).toMatchObject({ field: "anonymized" });
  });
});
