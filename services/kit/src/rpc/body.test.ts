import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { readBody } from "./body.ts";

const Line = Type.Object({ article: Type.String(), quantity: Type.Integer({ minimum: 1 }) });
const Body = Type.Object(
  {
    orderDate: Type.String({ format: "date-time" }),
    title: Type.String({ minLength: 1 }),
    lines: Type.Array(Line, { maxItems: 3 }),
    note: Type.Optional(Type.String({ default: "none" })),
    customAttributes: Type.Optional(Type.Object({}, { additionalProperties: true })),
    closed: Type.Optional(Type.Object({ a: Type.String() }, { additionalProperties: false })),
  },
  { title: "TestBody" },
);
const valid = () => ({
  orderDate: "2026-01-02T03:04:05Z",
  title: "T",
  lines: [{ article: "A", quantity: 2 }],
});

/** The refusal `readBody` throws, as the RPC layer turns it into INVALID_ARGUMENT. */
function refusal(body: unknown): AppError {
  try {
    readBody(Body, body as never);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("accepted");
}

describe("readBody: a direct caller's body under the REST rules", () => {
  it("answers a valid body with defaults filled and open objects' undeclared properties dropped", () => {
    const body = { ...valid(), evil: "<script>", lines: [{ article: "A", quantity: 1, status: "PICKED" }] };
    expect(readBody(Body, body)).toEqual({
      ...valid(),
      note: "none",
      lines: [{ article: "A", quantity: 1 }],
    });
    const free = { ...valid(), customAttributes: { anything: { goes: 1 } } };
    expect(readBody(Body, free).customAttributes).toEqual({ anything: { goes: 1 } });
  });

  it("refuses what REST refuses, naming the field: a bad date, a negative quantity, a missing title, an unknown key of a closed object", () => {
    expect(refusal({ ...valid(), orderDate: "not a date" })).toMatchObject({
      kind: "invalid",
      code: "VALIDATION_FAILED",
      field: "/orderDate",
    });
    expect(refusal({ ...valid(), lines: [{ article: "A", quantity: -3 }] }).field).toBe("/lines/0/quantity");
    const { title: _t, ...untitled } = valid();
    expect(refusal(untitled)).toMatchObject({ field: "/title" });
    expect(refusal(untitled).description).toBe('body is missing the required property "title".');
    expect(refusal({ ...valid(), closed: { a: "x", b: "y" } }).field).toBe("/closed/b");
    expect(refusal({ ...valid(), lines: [1, 2, 3, 4].map(() => valid().lines[0]) }).field).toBe("/lines");
  });

  it("refuses the values the JSON door refuses: NUL, lone surrogates, inexact whole numbers, deep nesting", () => {
    expect(refusal({ ...valid(), title: "a\u0000b" })).toMatchObject({ field: "/title" });
    expect(refusal({ ...valid(), title: "a\ud800b" })).toMatchObject({ field: "/title" });
    expect(refusal({ ...valid(), customAttributes: { n: 2 ** 60 } })).toMatchObject({
      code: "INVALID_NUMBER",
      field: "/customAttributes/n",
    });
    let deep: unknown = {};
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(refusal({ ...valid(), customAttributes: deep as object }).code).toBe("NESTING_TOO_DEEP");
  });
});
