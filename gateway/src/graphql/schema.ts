/**
 * The GraphQL schema (SDL + resolvers) from the resource modules. Object and input types come from
 * the REST JSON schemas (sdl.ts), so REST and GraphQL describe each resource alike; each module adds
 * its root fields, relationships and mutations. A new resource lands with its module here.
 *
 * `npm run graphql:schema` prints the SDL; gateway/schema.graphql is that output, checked by a test.
 */

import { Filters } from "@fop/contracts/rest/common";
import { checkJsonValue } from "@fop/kit/schemas/json-values";
import { Type } from "@sinclair/typebox";
import type { ValueNode } from "graphql";
import type { IResolvers } from "mercurius";
import type { GqlContext } from "./context.ts";
import { gql } from "./graphql-js.ts";
import type { Args, GraphModule } from "./module.ts";
import { carriers } from "./resources/carriers.ts";
import { catalog } from "./resources/catalog.ts";
import { loadUnits } from "./resources/loadunits.ts";
import { audits, notifications } from "./resources/notifications.ts";
import { picking } from "./resources/picking.ts";
import { returns } from "./resources/returns.ts";
import { TypeRegistry } from "./sdl.ts";

export const MODULES: readonly GraphModule[] = [
  catalog,
  picking,
  loadUnits,
  carriers,
  returns,
  audits,
  notifications,
];

const PREAMBLE = `"""
The field is null only when an error entry explains why (semantic nullability draft): clients may
treat it as non-null once they have handled errors. levels: which list levels this applies to
(0 = the field itself, 1 = its items).
"""
directive @semanticNonNull(levels: [Int] = [0]) on FIELD_DEFINITION

"An instant, ISO 8601 in UTC (e.g. 2026-01-31T12:00:00.000Z)."
scalar DateTime

"Any JSON value: maps (localized texts, custom attributes) and objects the REST schema leaves open."
scalar JSON

"Where a page of a connection starts and ends, and whether more follow either way."
type PageInfo {
  "The first edge's cursor; null when the page is empty."
  startCursor: String
  "The last edge's cursor; null when the page is empty."
  endCursor: String
  hasNextPage: Boolean @semanticNonNull
  hasPreviousPage: Boolean @semanticNonNull
}`;

/** Names for the shared filter operator sets (REST names them in the reference). */
function knownNames(): Map<object, string> {
  const names = new Map<object, string>();
  for (const [name, schema] of Object.entries(Filters))
    if (typeof schema === "object") names.set(schema, name);
  names.set(Type.Union([Type.Literal("ASC"), Type.Literal("DESC")]), "SortDirection");
  return names;
}

const indent = (line: string) =>
  line
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");

/** The schema's SDL, formatted (what schema.graphql holds). */
export function buildSdl(modules: readonly GraphModule[] = MODULES): string {
  const t = new TypeRegistry(knownNames());
  const query: string[] = [];
  const mutation: string[] = [];
  for (const m of modules) {
    const roots = m.define(t);
    query.push(...(roots.query ?? []));
    mutation.push(...(roots.mutation ?? []));
  }
  const sdl = [
    PREAMBLE,
    t.sdl(),
    `type Query {\n${query.map(indent).join("\n")}\n}`,
    mutation.length ? `type Mutation {\n${mutation.map(indent).join("\n")}\n}` : "",
  ].join("\n\n");
  return `${gql.print(gql.parse(sdl))}\n`;
}

const { Kind } = gql;

/** A JSON literal's value; variables inside it are resolved (`{ v: $v }`). */
function literal(ast: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map((v) => literal(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literal(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value] ?? null;
    default:
      return undefined;
  }
}

/** A JSON value as the REST door takes it: finite numbers, safe integers, no NUL, no __proto__ keys. */
const checked = (value: unknown) => {
  checkJsonValue(value);
  return value;
};

const SCALARS = {
  DateTime: new gql.GraphQLScalarType({
    name: "DateTime",
    description: "ISO 8601 instant",
    serialize: (v) => v,
    parseValue: (v) => checked(v),
    parseLiteral: (ast) => (ast.kind === Kind.STRING ? checked(ast.value) : undefined),
  }),
  JSON: new gql.GraphQLScalarType({
    name: "JSON",
    description: "Any JSON value",
    serialize: (v) => v,
    parseValue: (v) => checked(v),
    parseLiteral: (ast, variables) => checked(literal(ast, variables)),
  }),
};

/** Every module's resolvers plus the scalars. */
export function buildResolvers(modules: readonly GraphModule[] = MODULES): IResolvers<Args, GqlContext> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const m of modules) {
    for (const [type, fields] of Object.entries(m.resolvers)) {
      out[type] = { ...(out[type] ?? {}), ...(fields as Record<string, unknown>) };
    }
  }
  return { ...(out as IResolvers<Args, GqlContext>), ...SCALARS };
}
