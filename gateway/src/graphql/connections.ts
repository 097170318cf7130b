/**
 * Relay-style connections: `edges { cursor node }`, `pageInfo`, and `totalCount` (counted only when
 * the query selects it).
 *
 * Search connections page both ways (`first`/`after`, `last`/`before`) in the REST search's order,
 * with its cursors: the REST search body is built from the arguments and validated by the same
 * schema, so its limits and error texts hold here too. List connections (the REST list endpoints,
 * `size` + `startAfterId`) page forward: `first`/`after`.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Permission } from "@fop/contracts/permissions";
import { listFilters } from "@fop/contracts/rest/common";
import { AppError, invalid } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { LIST_PAGE, SEARCH_PAGE } from "@fop/kit/paging";
import { type AjvError, describeValidation } from "@fop/kit/schemas/describe";
import { bodyValidator } from "@fop/kit/schemas/validators";
import type { PageInfo as PageInfoMessage } from "@fop/proto/fop/common/v1/common_pb.js";
import type { TObject } from "@sinclair/typebox";
import type { ValidateFunction } from "ajv";
import type { FieldNode, GraphQLResolveInfo, SelectionSetNode } from "graphql";
import { appErrorOf } from "../plugins/errors.ts";
import { type SearchBody, toSearchRequest } from "../routes/search.ts";
import { type GqlContext, need } from "./context.ts";
import { gql } from "./graphql-js.ts";
import type { Args } from "./module.ts";
import { describe, pascal, type TypeRegistry } from "./sdl.ts";

const { Kind } = gql;

export const SEARCH_MAX = SEARCH_PAGE.maximum;
export const SEARCH_DEFAULT = SEARCH_PAGE.default;
/** GraphQL list connections take at most 250 per page (the REST lists up to LIST_PAGE.maximum). */
export const LIST_MAX = 250;
export const LIST_DEFAULT = LIST_PAGE.default;

/** Whether the field being resolved selects `name` (directly, in an inline fragment or a fragment). */
export function selects(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === name;
      if (s.kind === Kind.INLINE_FRAGMENT) return visit(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return visit(info.fragments[s.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((f: FieldNode) => visit(f.selectionSet));
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: {
    startCursor: string | null;
    endCursor: string | null;
    hasNextPage: boolean;
    hasPreviousPage: boolean;
  };
  totalCount?: number | undefined;
}

/** `Node`Connection and `Node`Edge; semantically non-null wherever null only ever means an error. */
export function defineConnection(t: TypeRegistry, node: string, what: string): string {
  const name = `${node}Connection`;
  if (t.has(name)) return name;
  t.define(
    `${node}Edge`,
    `${describe(`One ${what} and its cursor.`)}type ${node}Edge {\n  "Pass as after (or before) to continue after (before) this ${what}."\n  cursor: String @semanticNonNull\n  node: ${node} @semanticNonNull\n}`,
  );
  t.define(
    name,
    `${describe(`A page of ${what}s.`)}type ${name} {\n  edges: [${node}Edge] @semanticNonNull(levels: [0, 1])\n  pageInfo: PageInfo @semanticNonNull\n  "The number of all matches (counted only when selected)."\n  totalCount: Int @semanticNonNull\n}`,
  );
  return name;
}

export const SEARCH_ARGS =
  'first: Int, after: String, last: Int, before: String, "Filters, as the REST search query." filter: FILTER, "At most one entry, as the REST search sort." sort: [SORT!]';

/** Search arguments for a root field: `filter` and `sort` typed from the REST search payload. */
export function searchArgs(
  t: TypeRegistry,
  payload: { properties: Record<string, unknown> },
  hint: string,
): string {
  const props = payload.properties as { query: unknown; sort: { items: unknown } };
  return SEARCH_ARGS.replace("FILTER", t.input(props.query, `${hint}SearchQuery`, false)).replace(
    "SORT",
    t.input(props.sort.items, `${hint}Sort`, false).replace(/!$/, ""),
  );
}

export interface SearchArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  filter?: JsonObject | null;
  sort?: JsonObject[] | null;
}

function pageSize(value: number | null | undefined, name: string, max: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw invalid("INVALID_PAGE_SIZE", `${name} must be a whole number from 1 to ${max}.`, name);
  }
  return value;
}

/** The REST search body the arguments mean (validated by the REST payload's schema). */
export function searchBody(args: SearchArgs, validate: ValidateFunction): SearchBody {
  const first = pageSize(args.first, "first", SEARCH_MAX);
  const last = pageSize(args.last, "last", SEARCH_MAX);
  const clash = (a: string, b: string) =>
    invalid("INVALID_PAGINATION", `${a} cannot be combined with ${b}.`, a);
  if (first !== undefined && last !== undefined) throw clash("last", "first");
  if (args.after && args.before) throw clash("before", "after");
  if (args.after && last !== undefined) throw clash("last", "after");
  if (args.before && first !== undefined) throw clash("first", "before");
  const body: SearchBody = { query: args.filter ?? {} };
  if (args.sort) body.sort = args.sort as SearchBody["sort"];
  if (args.after) body.after = args.after;
  if (args.before) body.before = args.before;
  if (first !== undefined) body.size = first;
  if (last !== undefined) body.last = last;
  if (!validate(body)) {
    const e = (validate.errors ?? [])[0] as AjvError | undefined;
    const path = e?.instancePath.replace(/^\/query/, "/filter") ?? "";
    throw invalid(
      "VALIDATION_FAILED",
      e
        ? describeValidation("", { ...e, instancePath: path }).replace(/^\//, "")
        : "The arguments are invalid.",
      path.split("/")[1] ?? "filter",
    );
  }
  return body;
}

/** The SearchRequest message of a search connection (cursors per item; total only when selected). */
export function searchRequest(args: SearchArgs, validate: ValidateFunction, info: GraphQLResolveInfo) {
  return {
    ...toSearchRequest(searchBody(args, validate)),
    withTotal: selects(info, "totalCount"),
    withCursors: true,
  };
}

/** A search page as a connection. */
export function searchConnection<T>(
  nodes: T[],
  pageInfo: PageInfoMessage | undefined,
  total: bigint | undefined,
): Connection<T> {
  const cursors = pageInfo?.cursors ?? [];
  return {
    edges: nodes.map((node, i) => ({ cursor: cursors[i] ?? "", node })),
    pageInfo: {
      startCursor: nodes.length ? (cursors[0] ?? null) : null,
      endCursor: nodes.length ? (cursors[nodes.length - 1] ?? null) : null,
      hasNextPage: pageInfo?.hasNextPage ?? false,
      hasPreviousPage: pageInfo?.hasPreviousPage ?? false,
    },
    totalCount: total === undefined ? undefined : Number(total),
  };
}

/** What a search RPC answered: the page's nodes, its page info (with cursors) and the total. */
export interface SearchAnswer {
  nodes: unknown[];
  pageInfo?: PageInfoMessage | undefined;
  total?: bigint | undefined;
}

/**
 * The resolver of a search connection root field: `permission` checked, the arguments validated as
 * the REST search `payload`, `run` calling the owning service's search RPC.
 */
export function searchRoot(
  permission: Permission,
  payload: object,
  run: (c: GqlContext, search: ReturnType<typeof searchRequest>) => Promise<SearchAnswer>,
) {
  return async (_: unknown, args: SearchArgs, c: GqlContext, info: GraphQLResolveInfo) => {
    need(c, permission);
    const r = await run(c, searchRequest(args, bodyValidator(payload), info)).catch((e: unknown) => {
      throw renamed(e);
    });
    return searchConnection(r.nodes, r.pageInfo, r.total);
  };
}

/** REST search body fields (as the services name them) -> the connection's arguments. */
const ARGUMENT_OF: Record<string, string> = {
  query: "filter",
  size: "first",
  last: "last",
  after: "after",
  before: "before",
  sort: "sort",
};

/** A search's error with its `field` named as the connection's argument (`/query/x` -> `filter/x`). */
function renamed(e: unknown): unknown {
  const err = appErrorOf(e);
  const field = err?.field;
  if (!err || !field?.startsWith("/")) return e;
  const [head = "", ...rest] = field.slice(1).split("/");
  const arg = Object.hasOwn(ARGUMENT_OF, head) ? ARGUMENT_OF[head] : head;
  return new AppError(err.kind, {
    code: err.code,
    summary: err.summary,
    description: err.description,
    field: [arg, ...rest].join("/"),
    ...(err.requestVersion !== undefined ? { requestVersion: err.requestVersion } : {}),
    ...(err.version !== undefined ? { version: err.version } : {}),
    cause: e,
  });
}

// --- list connections ---------------------------------------------------------------------------

export const LIST_ARGS = "first: Int, after: String";

/** A list connection's arguments: `first`, `after` and the list's declared filters, typed from their schemas. */
export function listArgs(t: TypeRegistry, filters: TObject): string {
  const args = Object.entries(filters.properties).map(
    ([name, schema]) => `${name}: ${t.input(schema, pascal(name), false)}`,
  );
  return [LIST_ARGS, ...args].join(", ");
}

export interface ListArgs {
  first?: number | null;
  after?: string | null;
}

const LIST_CURSOR = "id:";
const encodeListCursor = (id: string) => Buffer.from(`${LIST_CURSOR}${id}`, "utf8").toString("base64url");

function decodeListCursor(cursor: string): string {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const id = text.startsWith(LIST_CURSOR) ? text.slice(LIST_CURSOR.length) : "";
  if (!isUuid(id)) throw invalid("INVALID_CURSOR", "The cursor is not one this API issued.", "after");
  return id;
}

/** `size` (one more than asked, to know whether more follow) and `startAfterId` of a list call. */
export function listPage(args: ListArgs): { size: number; startAfterId: string; first: number } {
  const first = pageSize(args.first, "first", LIST_MAX) ?? LIST_DEFAULT;
  return {
    // At most 251: the RPC lists take up to 500.
    size: first + 1,
    startAfterId: args.after ? decodeListCursor(args.after) : "",
    first,
  };
}

/** What a list connection's RPC call answers: the page's nodes (one more than `first` when more follow) and the total. */
export interface ListAnswer<T> {
  nodes: T[];
  total: bigint | number;
}

/** A list call's RPC request: the page and the list's declared filters from the arguments. */
export type ListRequest = { page: ReturnType<typeof listPage>; filters: JsonObject };

/**
 * A list connection's resolver (the REST list endpoints' GraphQL side): the permission, the
 * request (page + the declared filters, built as the REST handler builds them) and one RPC call.
 */
export function listRoot<T extends { id: string }>(
  permission: Permission,
  filters: TObject | undefined,
  run: (c: GqlContext, request: ListRequest, args: Args) => Promise<ListAnswer<T>>,
) {
  return async (_: unknown, args: Args, c: GqlContext) => {
    need(c, permission);
    const page = listPage(args);
    const r = await run(c, { page, filters: filters ? listFilters(filters, args) : {} }, args);
    return listConnection(r.nodes, page, r.total);
  };
}

/** A list page as a connection; `nodes` may hold one more than `first` (then more follow). */
export function listConnection<T extends { id: string }>(
  nodes: T[],
  page: { first: number; startAfterId: string },
  total?: bigint | number,
  more?: boolean,
): Connection<T> {
  const shown = nodes.slice(0, page.first);
  const edges = shown.map((node) => ({ cursor: encodeListCursor(node.id), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasNextPage: more ?? nodes.length > page.first,
      hasPreviousPage: Boolean(page.startAfterId),
    },
    totalCount: total === undefined ? undefined : Number(total),
  };
}
