/**
 * Index-backed keyset pagination for every search endpoint: one sort key plus the id as tie-breaker,
 * forward (`after`, `size`) and backward (`before`, `last`), never OFFSET. Nulls sort last ascending
 * and first descending (Postgres' own order), so one btree index (tenant_id, key, id) serves both
 * directions.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { parseInstant } from "../datetime.ts";
import { type Db, query as runSql } from "../db/sql.ts";
import { readSnapshot } from "../db/tx.ts";
import { invalid } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { SEARCH_PAGE } from "../paging.ts";
import type { CursorCodec, CursorData } from "./cursor.ts";
import { checkAttributeKey, type QueryFields, translateQuery } from "./query.ts";
import { SqlBuilder } from "./sql-builder.ts";

export type SortType = "text" | "timestamptz" | "uuid" | "numeric" | "jsonb";

/** A sortable expression (trusted SQL) and how to compare it. */
export interface SortSpec {
  expr: string;
  type: SortType;
  nullable: boolean;
}

/** Sort fields of a resource; map-valued fields (customAttributes) build their expression per key. */
export type SortFields = Readonly<Record<string, SortSpec | ((key: string, b: SqlBuilder) => SortSpec)>>;

export interface SearchResource {
  /** Qualified table, aliased as `t` in every query. */
  table: string;
  /** Select list, e.g. "t.*". */
  select: string;
  fields: QueryFields;
  sorts: SortFields;
}

export interface SearchParams {
  query?: JsonObject | undefined;
  sort?: { field: string; key?: string | undefined; direction: "ASC" | "DESC" } | undefined;
  after?: string | undefined;
  before?: string | undefined;
  size?: number | undefined;
  last?: number | undefined;
  withTotal?: boolean | undefined;
  /**
   * The platform's deprecated paging (use `after`): continue after, excluding, the entity with this
   * id in the request's sort order, as `after` with that entity's cursor would. Forward only.
   */
  startAfterId?: string | undefined;
  /** Fill `pageInfo.cursors` (one cursor per row of the page, for GraphQL edges). */
  withCursors?: boolean | undefined;
}

export interface PageInfo {
  startCursor: string;
  endCursor: string;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  /**
   * Only when `withCursors` was asked: each row's cursor, in page order. `after` one of them
   * continues after that row, `before` continues before it.
   */
  cursors?: string[];
}

export interface SearchPage<R> {
  rows: R[];
  pageInfo: PageInfo;
  total?: number;
}

const ID: SortSpec = { expr: "t.id", type: "uuid", nullable: false };
const SORT_VALUE = "__sort_value";

function checkPaging(p: SearchParams): { backward: boolean; limit: number } {
  const clash = (a: string, b: string) =>
    invalid("INVALID_PAGINATION", `${a} cannot be combined with ${b}.`, `/${a}`);
  if (p.after && p.before) throw clash("after", "before");
  if (p.after && p.last) throw clash("last", "after");
  if (p.before && p.size) throw clash("size", "before");
  if (p.size && p.last) throw clash("last", "size");
  if (p.startAfterId) {
    if (p.after) throw clash("startAfterId", "after");
    if (p.before) throw clash("startAfterId", "before");
    if (p.last) throw clash("startAfterId", "last");
  }
  const backward = Boolean(p.before || p.last);
  const limit = (backward ? p.last : p.size) || SEARCH_PAGE.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_PAGE.maximum) {
    throw invalid(
      "INVALID_PAGE_SIZE",
      `${backward ? "last" : "size"} must be a whole number from 1 to ${SEARCH_PAGE.maximum}.`,
      backward ? "/last" : "/size",
    );
  }
  return { backward, limit };
}

function resolveSort(
  res: SearchResource,
  p: SearchParams,
  b: SqlBuilder,
): { key: string; spec: SortSpec; dir: "ASC" | "DESC" } {
  if (!p.sort) return { key: "id", spec: ID, dir: "ASC" };
  const entry = Object.hasOwn(res.sorts, p.sort.field) ? res.sorts[p.sort.field] : undefined;
  if (!entry) {
    throw invalid(
      "UNKNOWN_SORT_FIELD",
      `unknown sort field ${JSON.stringify(p.sort.field)}; allowed: ${Object.keys(res.sorts).join(", ")}.`,
      "/sort/0",
    );
  }
  if (typeof entry === "function") {
    const mapKey = p.sort.key ?? "";
    checkAttributeKey(mapKey, `/sort/0/${p.sort.field}`);
    return { key: `${p.sort.field}:${mapKey}`, spec: entry(mapKey, b), dir: p.sort.direction };
  }
  return { key: p.sort.field, spec: entry, dir: p.sort.direction };
}

function cursorParam(spec: SortSpec, value: unknown, b: SqlBuilder, field: string): string {
  const bad = () => invalid("INVALID_CURSOR", "The cursor is not one this API issued.", field);
  if (spec.type === "jsonb") return b.param(JSON.stringify(value ?? null), "jsonb");
  if (typeof value !== "string") throw bad();
  if (spec.type === "uuid" && !isUuid(value)) throw bad();
  if (spec.type === "timestamptz") {
    const at = parseInstant(value);
    if (!at) throw bad();
    return b.param(at, "timestamptz");
  }
  if (spec.type === "numeric" && !/^-?\d{1,100}(\.\d{1,100})?(e[+-]?\d{1,4})?$/i.test(value)) throw bad();
  return b.param(value, spec.type);
}

/** Rows strictly after the cursor row in scan order `dir` (nulls last ASC / first DESC). */
function keysetCondition(
  spec: SortSpec,
  dir: "ASC" | "DESC",
  c: CursorData,
  b: SqlBuilder,
  field: string,
): string {
  if (!isUuid(c.id)) throw invalid("INVALID_CURSOR", "The cursor is not one this API issued.", field);
  const id = b.param(c.id, "uuid");
  const gt = dir === "ASC" ? ">" : "<";
  if (spec.expr === ID.expr) return `t.id ${gt} ${id}`;
  const isNull = c.value === null || c.value === undefined;
  if (!spec.nullable) {
    if (isNull) throw invalid("INVALID_CURSOR", "The cursor is not one this API issued.", field);
    return `(${spec.expr}, t.id) ${gt} (${cursorParam(spec, c.value, b, field)}, ${id})`;
  }
  if (dir === "ASC") {
    if (isNull) return `(${spec.expr} IS NULL AND t.id > ${id})`;
    const v = cursorParam(spec, c.value, b, field);
    return `(${spec.expr} > ${v} OR (${spec.expr} = ${v} AND t.id > ${id}) OR ${spec.expr} IS NULL)`;
  }
  if (isNull) return `((${spec.expr} IS NULL AND t.id < ${id}) OR ${spec.expr} IS NOT NULL)`;
  const v = cursorParam(spec, c.value, b, field);
  return `(${spec.expr} < ${v} OR (${spec.expr} = ${v} AND t.id < ${id}))`;
}

/**
 * A row's sort value as its cursor keeps it: instants as ISO-8601 UTC (Postgres may hand them over
 * as Dates or as its own text form, "2026-01-01 10:00:00.123+00").
 */
function cursorValue(v: unknown, spec: SortSpec): unknown {
  if (v instanceof Date) return v.toISOString();
  // pg answers numeric as text but integer columns as numbers; cursors carry numerics as text.
  if (spec.type === "numeric" && typeof v === "number") return String(v);
  if (spec.type === "timestamptz" && typeof v === "string") {
    const at = parseInstant(v.replace(" ", "T").replace(/([+-]\d{2})$/, "$1:00"));
    return at ? at.toISOString() : v;
  }
  return v ?? null;
}

/**
 * The cursor of `startAfterId`'s entity (in this tenant, whatever the query) for `sort`: as if the
 * client had sent `after` with that entity's cursor. An id that is no entity of the tenant (another
 * tenant's included, so nothing leaks) is a 400 naming the field, never a silent first page.
 */
async function startAfterCursor(
  db: Db,
  tenant: string,
  res: SearchResource,
  p: SearchParams,
  sort: { key: string; dir: "ASC" | "DESC" },
): Promise<CursorData> {
  const id = p.startAfterId ?? "";
  const unknown = () =>
    invalid(
      "UNKNOWN_START_AFTER_ID",
      "startAfterId (deprecated: use after with pageInfo.endCursor) names no entity of this search.",
      "/startAfterId",
    );
  if (!isUuid(id)) throw unknown();
  // Its own builder: a map-valued sort builds its expression with bind parameters.
  const b = new SqlBuilder();
  const tenantParam = b.param(tenant, "text");
  const idParam = b.param(id.toLowerCase(), "uuid");
  const { spec } = resolveSort(res, p, b);
  const [row] = await runSql<{ v: unknown }>(db, {
    text: `SELECT ${spec.expr} AS v FROM ${res.table} t WHERE t.tenant_id = ${tenantParam} AND t.id = ${idParam}`,
    params: b.params,
  });
  if (!row) throw unknown();
  return { sort: sort.key, dir: sort.dir, value: cursorValue(row.v, spec), id: id.toLowerCase() };
}

export interface SearchOptions {
  /** The service's cursor codec (its cursors are signed with the service's secret). */
  cursors: CursorCodec;
  /** "Now" for relative date filters (after/before durations). */
  now?: Date;
}

/** Translates and runs one search page for `tenant`; rows come back as selected (plus no extras). */
export async function runSearch<R extends Record<string, unknown>>(
  db: Db,
  tenant: string,
  res: SearchResource,
  p: SearchParams,
  opts: SearchOptions,
): Promise<SearchPage<R>> {
  const now = opts.now ?? new Date();
  const { backward, limit } = checkPaging(p);
  const b = new SqlBuilder();
  const tenantParam = b.param(tenant, "text");
  const where = translateQuery(p.query, res.fields, b, now);
  const sort = resolveSort(res, p, b);
  const scanDir = backward ? (sort.dir === "ASC" ? "DESC" : "ASC") : sort.dir;

  const conditions = [`t.tenant_id = ${tenantParam}`, where];
  const rawCursor = backward ? p.before : p.after;
  const cursorField = backward ? "/before" : "/after";
  // The deprecated startAfterId is `after` with its entity's cursor (checkPaging: forward only).
  const anchor = p.startAfterId ? await startAfterCursor(db, tenant, res, p, sort) : undefined;
  const anchorCursor = anchor ? opts.cursors.encode(anchor) : "";
  if (anchor) {
    conditions.push(keysetCondition(sort.spec, scanDir, anchor, b, "/startAfterId"));
  } else if (rawCursor) {
    const c = opts.cursors.decode(rawCursor, cursorField);
    if (c.sort !== sort.key || c.dir !== sort.dir) {
      throw invalid(
        "CURSOR_SORT_MISMATCH",
        "The cursor belongs to a search with a different sort.",
        cursorField,
      );
    }
    conditions.push(keysetCondition(sort.spec, scanDir, c, b, cursorField));
  }
  const nulls = scanDir === "ASC" ? "NULLS LAST" : "NULLS FIRST";
  const orderBy =
    sort.spec.expr === ID.expr ? `t.id ${scanDir}` : `${sort.spec.expr} ${scanDir} ${nulls}, t.id ${scanDir}`;
  const text = `SELECT ${res.select}, ${sort.spec.expr} AS ${SORT_VALUE} FROM ${res.table} t WHERE ${conditions.join(" AND ")} ORDER BY ${orderBy} LIMIT ${limit + 1}`;

  const read = (d: Db) =>
    Promise.all([
      withRegexErrors(() => runSql<R>(d, { text, params: b.params })),
      p.withTotal ? countMatches(d, tenant, res, p, now) : Promise.resolve(undefined),
    ]);
  // With the total: page and count on one snapshot, so they agree.
  const [rows, total] = await (p.withTotal ? readSnapshot(db, read) : read(db));
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backward) page.reverse();
  const cursorOf = (r: R | undefined) =>
    r
      ? opts.cursors.encode({
          sort: sort.key,
          dir: sort.dir,
          value: cursorValue(r[SORT_VALUE], sort.spec),
          id: String(r.id),
        })
      : "";
  const pageInfo: PageInfo = {
    startCursor: cursorOf(page[0]) || rawCursor || anchorCursor,
    endCursor: cursorOf(page[page.length - 1]) || rawCursor || anchorCursor,
    hasNextPage: backward ? Boolean(p.before) : hasMore,
    hasPreviousPage: backward ? hasMore : Boolean(p.after || anchor),
  };
  if (p.withCursors) pageInfo.cursors = page.map((r) => cursorOf(r));
  for (const r of page) delete r[SORT_VALUE];
  return total === undefined ? { rows: page, pageInfo } : { rows: page, pageInfo, total };
}

async function countMatches(db: Db, tenant: string, res: SearchResource, p: SearchParams, now: Date) {
  const b = new SqlBuilder();
  const text = `SELECT count(*)::int AS n FROM ${res.table} t WHERE t.tenant_id = ${b.param(tenant, "text")} AND ${translateQuery(p.query, res.fields, b, now)}`;
  const [row] = await withRegexErrors(() => runSql<{ n: number }>(db, { text, params: b.params }));
  return row?.n ?? 0;
}

/** Postgres rejects a malformed `like` regex with SQLSTATE 2201B: that is the caller's 400. */
async function withRegexErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if ((err as { code?: string }).code === "2201B") {
      throw invalid(
        "INVALID_REGEX",
        "A like pattern is not a valid (POSIX) regular expression, or it is too complex.",
      );
    }
    throw err;
  }
}

/**
 * The list endpoints' `startAfterId` paging (`ORDER BY key [DESC] NULLS LAST, t.id [DESC]`): the
 * condition for the rows after the entity `idParam` (a uuid placeholder) in that order. `key` is an
 * expression over the alias `t` of `table` (schema-qualified); the anchor is the entity's own row,
 * so a key that may be null is handled in all three cases (anchor null, row null, both).
 */
export function startAfterCondition(opts: {
  key: string;
  table: string;
  idParam: string;
  descending?: boolean;
}): string {
  const { key, table, idParam } = opts;
  const cmp = opts.descending ? "<" : ">";
  if (key === "t.id") return `t.id ${cmp} ${idParam}`;
  const anchor = `(SELECT ${key.replaceAll("t.", "a.")} FROM ${table} a WHERE a.tenant_id = t.tenant_id AND a.id = ${idParam})`;
  return `((${key}, t.id) ${cmp} (${anchor}, ${idParam}) OR (${anchor} IS NULL AND ${key} IS NULL AND t.id ${cmp} ${idParam}) OR (${anchor} IS NOT NULL AND ${key} IS NULL))`;
}

/** The ORDER BY of {@link startAfterCondition}'s paging. */
export const startAfterOrder = (key: string, descending = false): string => {
  const dir = descending ? "DESC" : "ASC";
  return key === "t.id" ? `t.id ${dir}` : `${key} ${dir} NULLS LAST, t.id ${dir}`;
};
