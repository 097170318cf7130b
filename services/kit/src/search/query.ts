/**
 * The query-language translator: a search `query` object ({field: {operator: value}}, `and`, `or`)
 * becomes one parameterised SQL boolean expression, using only the fields a resource whitelists.
 * Unknown fields or operators and values of the wrong type are 400s naming the offending path.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { parseInstant } from "../datetime.ts";
import { invalid } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { shiftByDuration } from "./duration.ts";
import type { SqlBuilder } from "./sql-builder.ts";

export type StringOp = "eq" | "notEq" | "in" | "notIn" | "like";
export type ScalarOp = "eq" | "notEq" | "in" | "notIn";

/** How one query field maps onto the table. `column` is trusted SQL (never user input). */
export type FieldSpec =
  /** Text (or uuid, with `uuid: true`) column. */
  | { kind: "string"; column: string; ops: readonly StringOp[]; uuid?: boolean }
  /** timestamptz column: eq, notEq, gt, gte, lt, lte, after, before. */
  | { kind: "date"; column: string }
  /** Text column holding one of `values`. */
  | { kind: "enum"; column: string; values: readonly string[]; ops: readonly ScalarOp[] }
  /** text[] column; the filter matches when any element matches (e.g. a name in any locale). */
  | { kind: "anyElement"; column: string; ops: readonly StringOp[] }
  /** text[] column queried as {contains: {eq | notEq | in}}; `values` restricts elements to an enum. */
  | { kind: "contains"; column: string; ops: readonly ("eq" | "notEq" | "in")[]; values?: readonly string[] }
  /** jsonb {locale: text} column: {<locale>: {eq, notEq, in, notIn} | {exists}}. */
  | { kind: "localizedMap"; column: string }
  /** jsonb free-attribute column: {<key>: boolean, string, number or date filter}. */
  | { kind: "attributeMap"; column: string }
  /** Numeric column (NumberFilter): eq, notEq, gt, gte, lt, lte, in, notIn. */
  | { kind: "number"; column: string }
  /** An object of sub-fields (e.g. priority: {label, sequence}), each filtered by its own spec, ANDed. */
  | { kind: "nested"; fields: QueryFields }
  /** Anything else: the resource translates the value itself. */
  | { kind: "custom"; translate: (value: JsonValue, b: SqlBuilder, path: string, now: Date) => string };

export type QueryFields = Readonly<Record<string, FieldSpec>>;

export const QUERY_LIMITS = {
  /** Entries of `and`/`or` (as the platform). */
  maxBranches: 500,
  /** Nesting depth of `and`/`or` (ours: keeps translation and SQL bounded). */
  maxDepth: 8,
  /** Values of `in`/`notIn` (as the platform). */
  maxInValues: 25,
  /** Length of every string value (as the platform). */
  maxStringLength: 256,
} as const;

/** A JSON object (not an array, not null). */
export const isObject = (v: unknown): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const badValue = (path: string, expected: string) =>
  invalid("INVALID_QUERY_VALUE", `${path} must be ${expected}.`, path);

function str(v: JsonValue | undefined, path: string): string {
  if (typeof v !== "string") throw badValue(path, "a string");
  if (v.length > QUERY_LIMITS.maxStringLength) {
    throw badValue(path, `at most ${QUERY_LIMITS.maxStringLength} characters long`);
  }
  return v;
}

function strList(v: JsonValue | undefined, path: string): string[] {
  if (!Array.isArray(v)) throw badValue(path, "an array of strings");
  if (v.length > QUERY_LIMITS.maxInValues)
    throw badValue(path, `an array of at most ${QUERY_LIMITS.maxInValues} strings`);
  return v.map((x, i) => str(x, `${path}/${i}`));
}

function dateTime(v: JsonValue | undefined, path: string): Date {
  const at = parseInstant(v);
  if (!at) throw badValue(path, "an ISO-8601 date-time (years 0001-9999) such as 2024-05-01T12:00:00Z");
  return at;
}

function oneOf(v: JsonValue | undefined, values: readonly string[] | undefined, path: string): string {
  const s = str(v, path);
  if (values && !values.includes(s)) throw badValue(path, `one of ${values.join(", ")}`);
  return s;
}

function operators(value: JsonValue, path: string, allowed: readonly string[]): [string, JsonValue][] {
  if (!isObject(value)) throw badValue(path, "an object of operators");
  const entries = Object.entries(value) as [string, JsonValue][];
  for (const [op] of entries) {
    if (!allowed.includes(op)) {
      throw invalid(
        "UNKNOWN_QUERY_OPERATOR",
        `${path}: unknown operator ${JSON.stringify(op)}; allowed: ${allowed.join(", ")}.`,
        `${path}/${op}`,
      );
    }
  }
  if (entries.length === 0) throw badValue(path, "an object with at least one operator");
  return entries;
}

const and = (parts: string[]) =>
  parts.length === 0 ? "TRUE" : parts.length === 1 ? parts[0]! : `(${parts.join(" AND ")})`;

function stringFilter(
  col: string,
  value: JsonValue,
  path: string,
  ops: readonly StringOp[],
  b: SqlBuilder,
  uuid = false,
) {
  return and(
    operators(value, path, ops).map(([op, v]) => {
      const p = `${path}/${op}`;
      switch (op) {
        case "eq": {
          const s = str(v, p);
          return uuid && !isUuid(s) ? "FALSE" : `${col} = ${b.param(s, uuid ? "uuid" : "text")}`;
        }
        case "notEq": {
          const s = str(v, p);
          return uuid && !isUuid(s)
            ? "TRUE"
            : `${col} IS DISTINCT FROM ${b.param(s, uuid ? "uuid" : "text")}`;
        }
        case "in": {
          const list = strList(v, p).filter((s) => !uuid || isUuid(s));
          return list.length === 0 ? "FALSE" : `${col} = ANY(${b.param(list, uuid ? "uuid[]" : "text[]")})`;
        }
        case "notIn": {
          const list = strList(v, p).filter((s) => !uuid || isUuid(s));
          return list.length === 0
            ? "TRUE"
            : `(${col} IS NULL OR NOT (${col} = ANY(${b.param(list, uuid ? "uuid[]" : "text[]")})))`;
        }
        default:
          return `${col}::text ~ ${b.param(str(v, p), "text")}`;
      }
    }),
  );
}

function dateFilter(col: string, value: JsonValue, path: string, b: SqlBuilder, now: Date) {
  const ops = ["eq", "notEq", "gt", "gte", "lt", "lte", "after", "before"];
  const cmp: Record<string, string> = {
    eq: "=",
    gt: ">",
    gte: ">=",
    lt: "<",
    lte: "<=",
    after: ">",
    before: "<",
  };
  return and(
    operators(value, path, ops).map(([op, v]) => {
      const p = `${path}/${op}`;
      const at = op === "after" || op === "before" ? shiftByDuration(str(v, p), now, p) : dateTime(v, p);
      if (op === "notEq") return `${col} IS DISTINCT FROM ${b.param(at, "timestamptz")}`;
      return `${col} ${cmp[op]} ${b.param(at, "timestamptz")}`;
    }),
  );
}

function numberFilter(col: string, value: JsonValue, path: string, b: SqlBuilder) {
  const ops = ["eq", "notEq", "gt", "gte", "lt", "lte", "in", "notIn"];
  const cmp: Record<string, string> = { eq: "=", gt: ">", gte: ">=", lt: "<", lte: "<=" };
  const num = (v: JsonValue | undefined, p: string): number => {
    if (typeof v !== "number" || !Number.isFinite(v)) throw badValue(p, "a number");
    return v;
  };
  return and(
    operators(value, path, ops).map(([op, v]) => {
      const p = `${path}/${op}`;
      if (op === "in" || op === "notIn") {
        if (!Array.isArray(v) || v.length > QUERY_LIMITS.maxInValues) {
          throw badValue(p, `an array of at most ${QUERY_LIMITS.maxInValues} numbers`);
        }
        const list = v.map((x, i) => num(x, `${p}/${i}`));
        if (op === "in") return list.length === 0 ? "FALSE" : `${col} = ANY(${b.param(list, "numeric[]")})`;
        return list.length === 0
          ? "TRUE"
          : `(${col} IS NULL OR NOT (${col} = ANY(${b.param(list, "numeric[]")})))`;
      }
      if (op === "notEq") return `${col} IS DISTINCT FROM ${b.param(num(v, p), "numeric")}`;
      return `${col} ${cmp[op]} ${b.param(num(v, p), "numeric")}`;
    }),
  );
}

function nestedFilter(fields: QueryFields, value: JsonValue, path: string, b: SqlBuilder, now: Date): string {
  if (!isObject(value)) throw badValue(path, "an object");
  const entries = Object.entries(value) as [string, JsonValue][];
  if (entries.length === 0) throw badValue(path, "an object with at least one field");
  return and(
    entries.map(([key, v]) => {
      const p = `${path}/${key}`;
      const spec = Object.hasOwn(fields, key) ? fields[key] : undefined;
      if (!spec) {
        throw invalid(
          "UNKNOWN_QUERY_FIELD",
          `${p}: unknown query field ${JSON.stringify(key)}; allowed: ${Object.keys(fields).join(", ")}.`,
          p,
        );
      }
      return translateField(spec, v, p, b, now);
    }),
  );
}

function enumFilter(
  col: string,
  value: JsonValue,
  path: string,
  spec: { values: readonly string[]; ops: readonly ScalarOp[] },
  b: SqlBuilder,
) {
  return and(
    operators(value, path, spec.ops).map(([op, v]) => {
      const p = `${path}/${op}`;
      if (op === "eq") return `${col} = ${b.param(oneOf(v, spec.values, p), "text")}`;
      if (op === "notEq") return `${col} IS DISTINCT FROM ${b.param(oneOf(v, spec.values, p), "text")}`;
      if (!Array.isArray(v) || v.length > 500) throw badValue(p, "an array of at most 500 values");
      const list = v.map((x, i) => oneOf(x, spec.values, `${p}/${i}`));
      if (op === "in") return list.length === 0 ? "FALSE" : `${col} = ANY(${b.param(list, "text[]")})`;
      return list.length === 0
        ? "TRUE"
        : `(${col} IS NULL OR NOT (${col} = ANY(${b.param(list, "text[]")})))`;
    }),
  );
}

function elementFilter(
  col: string,
  value: JsonValue,
  path: string,
  ops: readonly StringOp[],
  b: SqlBuilder,
  values?: readonly string[],
) {
  return and(
    operators(value, path, ops).map(([op, v]) => {
      const p = `${path}/${op}`;
      switch (op) {
        case "eq":
          return `${col} @> ${b.param([oneOf(v, values, p)], "text[]")}`;
        case "notEq":
          return `NOT (${col} @> ${b.param([oneOf(v, values, p)], "text[]")})`;
        case "in": {
          const list = values ? strList(v, p).map((s, i) => oneOf(s, values, `${p}/${i}`)) : strList(v, p);
          return list.length === 0 ? "FALSE" : `${col} && ${b.param(list, "text[]")}`;
        }
        case "notIn": {
          const list = strList(v, p);
          return list.length === 0 ? "TRUE" : `NOT (${col} && ${b.param(list, "text[]")})`;
        }
        default:
          return `EXISTS (SELECT 1 FROM unnest(${col}) AS e(v) WHERE e.v ~ ${b.param(str(v, p), "text")})`;
      }
    }),
  );
}

const LOCALE = /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,2}$/;

function localizedMapFilter(col: string, value: JsonValue, path: string, b: SqlBuilder) {
  if (!isObject(value)) throw badValue(path, "an object keyed by locale");
  return and(
    Object.entries(value).map(([locale, filter]) => {
      const lp = `${path}/${locale}`;
      if (!LOCALE.test(locale)) throw badValue(lp, "keyed by a locale such as de_DE");
      const k = () => b.param(locale, "text");
      return and(
        operators(filter as JsonValue, lp, ["eq", "notEq", "in", "notIn", "exists"]).map(([op, v]) => {
          const p = `${lp}/${op}`;
          switch (op) {
            case "eq":
              return `${col} @> jsonb_build_object(${k()}, ${b.param(str(v, p), "text")})`;
            case "notEq":
              return `NOT coalesce(${col} @> jsonb_build_object(${k()}, ${b.param(str(v, p), "text")}), false)`;
            case "in":
              return `(${col} ->> ${k()}) = ANY(${b.param(strList(v, p), "text[]")})`;
            case "notIn": {
              const key = k();
              return `((${col} ->> ${key}) IS NULL OR NOT ((${col} ->> ${key}) = ANY(${b.param(strList(v, p), "text[]")})))`;
            }
            default:
              if (typeof v !== "boolean") throw badValue(p, "true or false");
              return `(${col} -> ${k()}) IS ${v ? "NOT NULL" : "NULL"}`;
          }
        }),
      );
    }),
  );
}

/** Custom-attribute keys as the platform allows them: no dots, no leading $. */
export function checkAttributeKey(key: string, path: string): void {
  if (key.length === 0 || key.length > 256 || key.includes(".") || key.startsWith("$")) {
    throw badValue(path, "keyed by attribute names without '.' that do not start with '$'");
  }
}

function attributeMapFilter(col: string, value: JsonValue, path: string, b: SqlBuilder, now: Date) {
  if (!isObject(value)) throw badValue(path, "an object keyed by attribute name");
  const ops = ["eq", "notEq", "gt", "gte", "lt", "lte", "after", "before"];
  const cmp: Record<string, string> = { gt: ">", gte: ">=", lt: "<", lte: "<=", after: ">", before: "<" };
  return and(
    Object.entries(value).map(([key, filter]) => {
      const kp = `${path}/${key}`;
      checkAttributeKey(key, kp);
      return and(
        operators(filter as JsonValue, kp, ops).map(([op, v]) => {
          const p = `${kp}/${op}`;
          const k = b.param(key, "text");
          if (op === "eq" || op === "notEq") {
            if (typeof v === "string") str(v, p);
            else if (typeof v !== "boolean" && typeof v !== "number")
              throw badValue(p, "a boolean, string or number");
            const contains = `${col} @> jsonb_build_object(${k}, ${b.param(JSON.stringify(v), "jsonb")})`;
            return op === "eq" ? contains : `NOT coalesce(${contains}, false)`;
          }
          if (typeof v === "number" && op !== "after" && op !== "before") {
            return `(CASE WHEN jsonb_typeof(${col} -> ${k}) = 'number' THEN (${col} ->> ${k})::numeric ${cmp[op]} ${b.param(v, "numeric")} ELSE false END)`;
          }
          const at = op === "after" || op === "before" ? shiftByDuration(str(v, p), now, p) : dateTime(v, p);
          return `(CASE WHEN jsonb_typeof(${col} -> ${k}) = 'string' THEN (${col} ->> ${k}) ${cmp[op]} ${b.param(at.toISOString(), "text")} ELSE false END)`;
        }),
      );
    }),
  );
}

function translateField(spec: FieldSpec, value: JsonValue, path: string, b: SqlBuilder, now: Date): string {
  switch (spec.kind) {
    case "string":
      return stringFilter(spec.column, value, path, spec.ops, b, spec.uuid);
    case "date":
      return dateFilter(spec.column, value, path, b, now);
    case "enum":
      return enumFilter(spec.column, value, path, spec, b);
    case "anyElement":
      return elementFilter(spec.column, value, path, spec.ops, b);
    case "contains": {
      const [[, inner] = []] = operators(value, path, ["contains"]);
      return elementFilter(spec.column, inner as JsonValue, `${path}/contains`, spec.ops, b, spec.values);
    }
    case "localizedMap":
      return localizedMapFilter(spec.column, value, path, b);
    case "attributeMap":
      return attributeMapFilter(spec.column, value, path, b, now);
    case "number":
      return numberFilter(spec.column, value, path, b);
    case "nested":
      return nestedFilter(spec.fields, value, path, b, now);
    case "custom":
      return spec.translate(value, b, path, now);
  }
}

function translateNode(
  node: JsonValue,
  fields: QueryFields,
  b: SqlBuilder,
  path: string,
  depth: number,
  now: Date,
): string {
  if (!isObject(node)) throw badValue(path || "/query", "an object");
  if (depth > QUERY_LIMITS.maxDepth) {
    throw invalid(
      "QUERY_TOO_DEEP",
      `and/or may be nested at most ${QUERY_LIMITS.maxDepth} levels deep.`,
      path,
    );
  }
  const parts: string[] = [];
  for (const [key, value] of Object.entries(node) as [string, JsonValue][]) {
    const p = `${path}/${key}`;
    if (key === "and" || key === "or") {
      if (!Array.isArray(value) || value.length > QUERY_LIMITS.maxBranches) {
        throw badValue(p, `an array of at most ${QUERY_LIMITS.maxBranches} query objects`);
      }
      const branches = value.map((q, i) => translateNode(q, fields, b, `${p}/${i}`, depth + 1, now));
      if (branches.length > 0) parts.push(`(${branches.join(key === "and" ? " AND " : " OR ")})`);
      continue;
    }
    const spec = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (!spec) {
      throw invalid(
        "UNKNOWN_QUERY_FIELD",
        `${p}: unknown query field ${JSON.stringify(key)}; allowed: ${[...Object.keys(fields), "and", "or"].join(", ")}.`,
        p,
      );
    }
    parts.push(translateField(spec, value, p, b, now));
  }
  return and(parts);
}

/**
 * Translates `query` into a SQL boolean expression whose parameters are added to `b`.
 * An absent or empty query is "TRUE".
 */
export function translateQuery(
  query: JsonValue | undefined,
  fields: QueryFields,
  b: SqlBuilder,
  now: Date = new Date(),
): string {
  if (query === undefined || query === null) return "TRUE";
  return translateNode(query, fields, b, "/query", 0, now);
}
