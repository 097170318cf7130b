import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { gql } from "./graphql-js.ts";
import { TypeRegistry } from "./sdl.ts";

/** The registry's SDL plus a Query using `root`, built (so it is valid GraphQL). */
function build(t: TypeRegistry, root: string) {
  const sdl = `scalar DateTime\nscalar JSON\n${t.sdl()}\ntype Query { root: ${root} }`;
  return { sdl, schema: gql.buildSchema(sdl) };
}

describe("GraphQL types from JSON schemas", () => {
  it("objects: titled, required -> non-null, X|null -> nullable, date-time, id, nested objects named by place", () => {
    const t = new TypeRegistry();
    const Thing = Type.Object(
      {
        id: Type.String(),
        count: Type.Integer(),
        ratio: Type.Optional(Type.Number()),
        note: Type.Union([Type.String(), Type.Null()]),
        at: Type.String({ format: "date-time", description: "When" }),
        inner: Type.Object({ ok: Type.Boolean() }),
        tags: Type.Array(Type.String()),
        "bad-name": Type.String(),
        __hidden: Type.String(),
      },
      { title: "Thing" },
    );
    const name = t.outputType(Thing);
    const { schema } = build(t, name);
    const f = (schema.getType("Thing") as import("graphql").GraphQLObjectType).getFields();
    expect(Object.keys(f)).toEqual(["id", "count", "ratio", "note", "at", "inner", "tags"]);
    expect(Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v.type)]))).toEqual({
      id: "ID!",
      count: "Int!",
      ratio: "Float",
      note: "String",
      at: "DateTime!",
      inner: "ThingInner!",
      tags: "[String!]!",
    });
    expect(f.at!.description).toBe("When");
  });

  it("enums from literal unions and enum lists; String when a value is no GraphQL name; maps and open objects are JSON", () => {
    const t = new TypeRegistry();
    const S = Type.Object(
      {
        status: Type.Union([Type.Literal("OPEN"), Type.Literal("CLOSED")]),
        mode: Type.Unsafe<string>({ type: "string", enum: ["A", "B"] }),
        locale: Type.Union([Type.Literal("de-DE"), Type.Literal("en-US")]),
        labels: Type.Record(Type.String(), Type.String()),
        free: Type.Object({}, { additionalProperties: true }),
        either: Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
      },
      { title: "S" },
    );
    const { schema } = build(t, t.outputType(S));
    const f = (schema.getType("S") as import("graphql").GraphQLObjectType).getFields();
    expect(String(f.status!.type)).toBe("SStatus!");
    expect(
      (schema.getType("SStatus") as import("graphql").GraphQLEnumType).getValues().map((v) => v.name),
    ).toEqual(["OPEN", "CLOSED"]);
    expect(String(f.mode!.type)).toBe("SMode!");
    expect(String(f.locale!.type)).toBe("String!");
    for (const k of ["labels", "free", "either"]) expect(String(f[k]!.type), k).toBe("JSON!");
  });

  it("reuses a type met again (same structure), names known schemas, and types substituted placeholders", () => {
    const Filter = Type.Object({ eq: Type.Optional(Type.String()) });
    const t = new TypeRegistry(new Map([[Filter, "StringFilter"]]));
    const Q = Type.Object({ a: Type.Optional(Filter), b: Type.Optional(Filter) }, { title: "Q" });
    expect(t.input(Q, "Q")).toBe("QInput!");
    const { sdl } = build(t, "Int");
    expect(sdl).toContain("input StringFilter {\n  eq: String\n}");
    expect(sdl).toContain("input QInput {\n  a: StringFilter\n  b: StringFilter\n}");

    const Placeholder = Type.Object({}, { additionalProperties: true });
    const Real = Type.Object({ x: Type.Integer() }, { title: "Real" });
    const u = new TypeRegistry();
    u.substitute(Placeholder, Real);
    const out = u.outputType(Type.Object({ items: Type.Array(Placeholder) }, { title: "Job" }));
    expect(build(u, out).sdl).toContain("items: [Real!]!");
  });

  it("inputs: every field optional (the REST schema validates), recursive schemas refer to themselves", () => {
    const t = new TypeRegistry();
    const Query = Type.Recursive(
      (Self) => Type.Object({ name: Type.String(), and: Type.Optional(Type.Array(Self)) }),
      { $id: "ThingSearchQuery", title: "ThingSearchQuery" },
    );
    expect(t.input(Query, "x", false)).toBe("ThingSearchQuery");
    const { sdl } = build(t, "Int");
    expect(sdl).toContain("input ThingSearchQuery {\n  name: String\n  and: [ThingSearchQuery!]\n}");
  });

  it("an input that is one of several objects: one input with every variant's fields and the tags as an enum", () => {
    const t = new TypeRegistry();
    const Action = Type.Unsafe({
      type: "object",
      title: "ThingAction",
      oneOf: [
        Type.Object({ name: Type.Literal("START"), version: Type.Integer() }),
        Type.Object({ name: Type.Literal("STOP"), version: Type.Integer(), reason: Type.String() }),
        Type.Object({ name: Type.Literal("MOVE"), version: Type.String() }),
      ],
    });
    expect(t.input(Action, "ThingAction")).toBe("ThingActionInput!");
    const { sdl } = build(t, "Int");
    expect(sdl).toContain(
      "input ThingActionInput {\n  name: ThingActionName\n  version: JSON\n  reason: String\n}",
    );
    expect(sdl).toContain("enum ThingActionName {\n  START\n  STOP\n  MOVE\n}");
  });

  it("extends a derived type with relationship fields; refuses a name defined twice", () => {
    const t = new TypeRegistry();
    t.outputType(Type.Object({ id: Type.String() }, { title: "Job" }));
    t.extend("Job", ["facility: Job"]);
    expect(build(t, "Job").sdl).toContain("type Job {\n  id: ID!\n  facility: Job\n}");
    t.define("X", "type X { a: Int }");
    expect(() => t.define("X", "type X { b: Int }")).toThrow(/twice/);
  });
});
