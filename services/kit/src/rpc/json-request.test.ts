import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { decodeJsonRequest } from "./json-request.ts";

const input = (service: typeof CatalogService | typeof CarriersService, name: string) =>
  service.methods.find((m) => m.name === name)!.input;
const bytes = (text: string) => new TextEncoder().encode(text);

/** The refusal of `text` as a request of `schema`: its code and field. */
function refusal(schema: ReturnType<typeof input>, text: string) {
  try {
    decodeJsonRequest(schema, bytes(text));
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    return { kind: e.kind, code: e.code, field: e.field };
  }
  return expect.unreachable("the request was read");
}

describe("decodeJsonRequest (a direct caller's Connect JSON)", () => {
  const createCategory = input(CatalogService, "CreateCategory");
  const deleteMapping = input(CarriersService, "DeleteCountryServiceMapping");

  it("reads a request as proto3 JSON, ignoring fields it does not know", () => {
    const m = decodeJsonRequest(deleteMapping, bytes('{"carrierId":"c","id":"m","later":1}')) as never as {
      carrierId: string;
      id: string;
    };
    expect([m.carrierId, m.id]).toEqual(["c", "m"]);
  });

  it("names the field that does not take its value", () => {
    expect(refusal(deleteMapping, '{"carrierId":true,"id":"m"}')).toEqual({
      kind: "invalid",
      code: "VALIDATION_FAILED",
      field: "/carrierId",
    });
    expect(refusal(createCategory, '{"body":"not an object"}')).toMatchObject({ field: "/body" });
    expect(refusal(deleteMapping, "[1]")).toMatchObject({ field: "/" });
  });

  it("applies the REST JSON door first: keys written twice, NUL, lone surrogates, unsafe integers, depth", () => {
    expect(refusal(deleteMapping, '{"id":"a","id":"b"}')).toMatchObject({
      code: "DUPLICATE_KEY",
      field: "/id",
    });
    expect(refusal(deleteMapping, '{"id":"a\\u0000b"}')).toMatchObject({ field: "/id" });
    expect(refusal(deleteMapping, '{"id":"\\ud800"}')).toMatchObject({ field: "/id" });
    expect(refusal(createCategory, '{"body":{"n":9007199254740993}}')).toMatchObject({
      code: "INVALID_NUMBER",
      field: "/body/n",
    });
    const deep = `{"body":${"[".repeat(40)}${"]".repeat(40)}}`;
    expect(refusal(createCategory, deep)).toMatchObject({
      code: "NESTING_TOO_DEEP",
      field: expect.stringMatching(/^\/body\/0\//),
    });
    expect(refusal(createCategory, "{")).toMatchObject({ code: "MALFORMED_JSON" });
  });
});
