import { fromBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { ListRequestSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { readFilters } from "./filters.ts";
import { refuseUnknownFields } from "./proto.ts";

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

describe("listCall's guard: a caller on the contract before `filters`", () => {
  it("is told its filter fields are gone (REMOVED_FIELD), not answered unfiltered", () => {
    // A ListRequest as an older caller's encoder writes it: size (1), plus a field number the
    // message no longer declares (9: the old `statuses`), kept by protobuf as $unknown.
    const old = new BinaryWriter()
      .tag(1, WireType.Varint)
      .int32(10)
      .tag(9, WireType.LengthDelimited)
      .string("OPEN");
    const req = fromBinary(ListRequestSchema, old.finish());
    expect(req.size).toBe(10);
    expect(() => refuseUnknownFields(req, "see the proto.")).toThrow(/field number 9/);
    const current = fromBinary(
      ListRequestSchema,
      new BinaryWriter().tag(1, WireType.Varint).int32(10).finish(),
    );
    expect(() => refuseUnknownFields(current, "see the proto.")).not.toThrow();
  });
});
