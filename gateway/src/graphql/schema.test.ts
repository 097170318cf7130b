import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gql } from "./graphql-js.ts";
import { buildResolvers, buildSdl } from "./schema.ts";

const SCHEMA_FILE = path.resolve(import.meta.dirname, "../../schema.graphql");

describe("the GraphQL schema", () => {
  const sdl = buildSdl();
  const schema = gql.buildSchema(sdl);

  it("is the committed gateway/schema.graphql (regenerate: npm run graphql:schema > gateway/schema.graphql)", () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(sdl);
  });

  it("is valid, and every root field has a resolver", () => {
    expect(gql.validateSchema(schema)).toEqual([]);
    const resolvers = buildResolvers() as Record<string, Record<string, unknown>>;
    for (const type of [schema.getQueryType()!, schema.getMutationType()!]) {
      const missing = Object.keys(type.getFields()).filter(
        (f) => typeof resolvers[type.name]?.[f] !== "function",
      );
      expect(missing, `${type.name} fields without a resolver`).toEqual([]);
    }
  });

  it("declares @semanticNonNull and puts it on every root field, connection field, edge and node", () => {
    const doc = gql.parse(sdl);
    const directive = doc.definitions.find(
      (d) => d.kind === gql.Kind.DIRECTIVE_DEFINITION && d.name.value === "semanticNonNull",
    );
    expect(directive && gql.print({ ...directive, description: undefined } as typeof directive)).toBe(
      "directive @semanticNonNull(levels: [Int] = [0]) on FIELD_DEFINITION",
    );
    const semantic = (typeName: string, field: string) => {
      const def = doc.definitions.find(
        (d) => d.kind === gql.Kind.OBJECT_TYPE_DEFINITION && d.name.value === typeName,
      ) as import("graphql").ObjectTypeDefinitionNode;
      const f = def.fields?.find((x) => x.name.value === field);
      return f?.directives?.some((d) => d.name.value === "semanticNonNull") ?? false;
    };
    const roots = ["Query", "Mutation"].flatMap((t) =>
      Object.keys((t === "Query" ? schema.getQueryType() : schema.getMutationType())!.getFields()).map(
        (f) => [t, f] as const,
      ),
    );
    expect(roots.length).toBeGreaterThan(30);
    for (const [t, f] of roots) expect(semantic(t, f), `${t}.${f}`).toBe(true);
    const connections = Object.keys(schema.getTypeMap()).filter((n) => n.endsWith("Connection"));
    expect(connections.length).toBeGreaterThan(10);
    for (const c of connections) {
      for (const f of ["edges", "pageInfo", "totalCount"]) expect(semantic(c, f), `${c}.${f}`).toBe(true);
      const edge = c.replace(/Connection$/, "Edge");
      for (const f of ["cursor", "node"]) expect(semantic(edge, f), `${edge}.${f}`).toBe(true);
    }
  });

  it("types the resources from their REST schemas: required fields non-null, enums, relationships", () => {
    const pickJob = schema.getType("PickJob") as import("graphql").GraphQLObjectType;
    const fields = pickJob.getFields();
    expect(String(fields.id!.type)).toBe("ID!");
    expect(String(fields.status!.type)).toBe("PickJobStatus!");
    expect(String(fields.pickLineItems!.type)).toBe("[PickLineItem!]!");
    expect(String(fields.facility!.type)).toBe("Facility");
    expect(String(fields.loadUnits!.type)).toBe("[LoadUnit]");
    expect(
      String((schema.getType("LoadUnit") as import("graphql").GraphQLObjectType).getFields().stack!.type),
    ).toBe("Stack");
    const job = (schema.getType("ItemReturnJob") as import("graphql").GraphQLObjectType).getFields();
    expect(String(job.itemReturns!.type)).toBe("[ItemReturn!]!");
  });
});
