import { Type } from "@sinclair/typebox";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { compileStripper } from "./strip.ts";

const ajv = new Ajv({ strict: false, discriminator: true });
const strip = (schema: object, value: unknown) => {
  compileStripper(schema, ajv)?.(value);
  return value;
};

describe("compileStripper", () => {
  it("drops what an open object does not declare, at any depth, in arrays too", () => {
    const schema = Type.Object({
      a: Type.String(),
      lines: Type.Array(Type.Object({ id: Type.String(), article: Type.Object({ title: Type.String() }) })),
    });
    expect(
      strip(schema, {
        a: "x",
        tenant: "t",
        lines: [{ id: "1", status: "CLOSED", article: { title: "T", sneaky: 1 } }],
      }),
    ).toEqual({ a: "x", lines: [{ id: "1", article: { title: "T" } }] });
  });

  it("keeps free-form objects, and leaves closed ones to the validator", () => {
    const schema = Type.Object({
      customAttributes: Type.Object({}, { additionalProperties: true }),
      closed: Type.Object({ x: Type.Number() }, { additionalProperties: false }),
    });
    const value = { customAttributes: { any: { thing: 1 } }, closed: { x: 1 } };
    expect(strip(schema, structuredClone(value))).toEqual(value);
    // Nothing open with declared properties anywhere: nothing to compile.
    const nothing = Type.Object(
      { c: Type.Object({}, { additionalProperties: true }) },
      { additionalProperties: false },
    );
    expect(compileStripper(nothing, ajv)).toBeUndefined();
  });

  it("strips by the variant a discriminator names", () => {
    const a = Type.Object({
      name: Type.Unsafe({ type: "string", enum: ["A"] }),
      a: Type.Object({ k: Type.String() }),
    });
    const b = Type.Object({ name: Type.Unsafe({ type: "string", enum: ["B"] }), b: Type.String() });
    // A body that is one of several variants, told apart by a tag (contracts' OneOf).
    const schema = {
      type: "object",
      required: ["name"],
      discriminator: { propertyName: "name" },
      oneOf: [a, b],
    };
    expect(strip(schema, { name: "A", a: { k: "v", x: 1 }, b: "kept?" })).toEqual({
      name: "A",
      a: { k: "v" },
    });
    expect(strip(schema, { name: "B", b: "v", a: 1 })).toEqual({ name: "B", b: "v" });
  });

  it("strips by the first variant of an anyOf the value is valid against", () => {
    const schema = Type.Object({
      user: Type.Union([
        Type.Object({ username: Type.String() }, { required: ["username"] }),
        Type.Object({ userId: Type.String() }, { required: ["userId"] }),
      ]),
    });
    expect(strip(schema, { user: { userId: "u", role: "admin" } })).toEqual({ user: { userId: "u" } });
  });

  it("follows recursive schemas", () => {
    const node = Type.Recursive((Self) => Type.Object({ v: Type.Number(), children: Type.Array(Self) }), {
      $id: "Node",
    });
    expect(strip(node, { v: 1, x: 0, children: [{ v: 2, y: 0, children: [] }] })).toEqual({
      v: 1,
      children: [{ v: 2, children: [] }],
    });
  });
});
