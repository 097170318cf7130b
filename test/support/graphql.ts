/**
 * GraphQL over HTTP for the system tests, through a real GraphQL client (graphql-request): every
 * answer as { status, data, errors, headers, traceId }, whether the server answered 200 with errors
 * or a 4xx (graphql-request throws ClientError for those; it is unwrapped here). Plus the gateway's
 * SDL (gateway/schema.graphql) parsed, to drive selections from REST bodies and to list root fields.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { testSpans } from "@fop/kit/testing/tracing";
import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import {
  buildSchema,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  isObjectType,
} from "graphql";
import { ClientError, GraphQLClient } from "graphql-request";
import type { System } from "./system.ts";

export interface GqlError {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions: {
    code: string;
    kind?: string;
    status?: number;
    summary?: string;
    field?: string;
    requestVersion?: number;
    version?: number;
    [k: string]: unknown;
  };
}

export interface GqlResult<T = any> {
  status: number;
  data: T | null | undefined;
  errors: GqlError[];
  headers: Headers;
  /** The trace id of the `traceresponse` header ("" when absent). */
  traceId: string;
}

export type Gql = <T = any>(
  query: string,
  variables?: Record<string, unknown>,
  headers?: Record<string, string>,
) => Promise<GqlResult<T>>;

export const traceIdOf = (headers: Headers): string => headers.get("traceresponse")?.split("-")[1] ?? "";

/** A GraphQL client of the system's /graphql, as `token` (none: no Authorization header). */
export function graphqlClient(sys: System, token?: string, opts: { method?: "GET" | "POST" } = {}): Gql {
  const client = new GraphQLClient(`${sys.baseUrl}/graphql`, {
    errorPolicy: "all",
    method: opts.method ?? "POST",
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return async (query, variables, headers) => {
    try {
      const r = await client.rawRequest<any>(query, variables, headers);
      return {
        status: r.status,
        data: r.data,
        errors: (r.errors ?? []) as unknown as GqlError[],
        headers: r.headers,
        traceId: traceIdOf(r.headers),
      };
    } catch (err) {
      if (!(err instanceof ClientError)) throw err;
      const res = err.response as unknown as {
        status: number;
        data?: unknown;
        errors?: GqlError[];
        headers: Headers;
        body?: string;
      };
      return {
        status: res.status,
        data: res.data as never,
        errors: res.errors ?? [],
        headers: res.headers,
        traceId: traceIdOf(res.headers),
      };
    }
  };
}

// --- the schema -----------------------------------------------------------------------------------

export const SDL_PATH = path.resolve(import.meta.dirname, "../../gateway/schema.graphql");
export const sdl = readFileSync(SDL_PATH, "utf8");
export const schema: GraphQLSchema = buildSchema(sdl);

/** The names of the root fields of `type Query` / `type Mutation`. */
export const rootFields = (root: "Query" | "Mutation"): string[] => {
  const t = root === "Query" ? schema.getQueryType() : schema.getMutationType();
  return Object.keys(t?.getFields() ?? {}).sort();
};

/** Which fields to select: null for a leaf, a nested tree for an object (or a list of them). */
type Tree = Map<string, Tree | null>;

function selectTree(type: GraphQLObjectType, items: unknown[], missing: string[] = [], at = type.name): Tree {
  const fields = type.getFields();
  const tree: Tree = new Map();
  const values = new Map<string, unknown[]>();
  for (const item of items) {
    if (!item || typeof item !== "object") continue;
    for (const [k, v] of Object.entries(item)) {
      if (!values.has(k)) values.set(k, []);
      values.get(k)!.push(v);
    }
  }
  for (const [name, vs] of values) {
    const field = fields[name];
    if (!field) {
      missing.push(`${at}.${name}`);
      continue;
    }
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      tree.set(name, null);
    } else if (isObjectType(named)) {
      const nested = vs
        .flatMap((v) => (Array.isArray(v) ? v : [v]))
        .filter((v) => v && typeof v === "object");
      if (nested.length === 0) continue; // only nulls or empty lists: nothing to select below
      const child = selectTree(named, nested, missing, `${at}.${name}`);
      if (child.size > 0) tree.set(name, child);
    }
  }
  return tree;
}

const render = (tree: Tree): string =>
  `{ ${[...tree].map(([name, child]) => (child ? `${name} ${render(child)}` : name)).join(" ")} }`;

/** `value` as GraphQL answers it for the selection `tree` (absent fields null). */
export function project(tree: Tree, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => project(tree, v));
  if (!value || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, child] of tree) {
    const v = obj[name];
    out[name] = v === undefined || v === null ? null : child ? project(child, v) : v;
  }
  return out;
}

/**
 * The selection set of `typeName` that asks for every field the REST value `rest` holds (a list:
 * any of its items; nested objects likewise), and REST's value projected onto it: what GraphQL must
 * answer. Fields the GraphQL type does not have are left out and named in `missing` (as
 * Type.path.field).
 */
export function selectionFromRest(
  typeName: string,
  rest: unknown,
): { selection: string; expected: unknown; tree: Tree; missing: string[] } {
  const type = schema.getType(typeName);
  if (!type || !isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  const missing: string[] = [];
  const tree = selectTree(type, Array.isArray(rest) ? rest : [rest], missing);
  return {
    selection: render(tree),
    expected: project(tree, rest),
    tree,
    missing: [...new Set(missing)].sort(),
  };
}

// --- traces ---------------------------------------------------------------------------------------

/** Finished spans of one trace. */
export const spansOf = (traceId: string): ReadableSpan[] =>
  testSpans()
    .getFinishedSpans()
    .filter((s) => s.spanContext().traceId === traceId);

/** RPC client spans of one trace, by method (e.g. "fop.catalog.v1.CatalogService/BatchGetFacilities"). */
export function rpcCalls(traceId: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of spansOf(traceId)) {
    if (s.kind === SpanKind.CLIENT && /^fop\.[a-z]+\.v\d+\.\w+\/\w+$/.test(s.name))
      out[s.name] = (out[s.name] ?? 0) + 1;
  }
  return out;
}

/** The count of RPC client spans of `method` (the part after the service, e.g. "GetFacility") in `calls`. */
export const callsOf = (calls: Record<string, number>, method: string): number =>
  Object.entries(calls)
    .filter(([name]) => name.endsWith(`/${method}`))
    .reduce((n, [, c]) => n + c, 0);
