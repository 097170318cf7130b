import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { type QueryFields, translateQuery } from "./query.ts";
import { SqlBuilder } from "./sql-builder.ts";

const fields: QueryFields = {
  id: { kind: "string", column: "t.id", ops: ["eq", "notEq", "in", "notIn"], uuid: true },
  code: { kind: "string", column: "t.code", ops: ["eq", "notEq", "in", "notIn", "like"] },
  created: { kind: "date", column: "t.created" },
  status: { kind: "enum", column: "t.status", values: ["OPEN", "CLOSED"], ops: ["eq", "notEq", "in"] },
  name: { kind: "anyElement", column: "t.names", ops: ["eq", "notEq", "in", "notIn", "like"] },
  methods: {
    kind: "contains",
    column: "t.methods",
    ops: ["eq", "notEq", "in"],
    values: ["SINGLE_ORDER", "BATCH"],
  },
  nameLocalized: { kind: "localizedMap", column: "t.nl" },
  customAttributes: { kind: "attributeMap", column: "t.ca" },
};
const NOW = new Date("2026-01-10T00:00:00.000Z");
const UUID = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";

function tr(query: unknown) {
  const b = new SqlBuilder();
  const sql = translateQuery(query as never, fields, b, NOW);
  return { sql, params: b.params };
}

describe("translateQuery", () => {
  it.each([
    ["empty", {}, "TRUE", []],
    ["uuid eq", { id: { eq: UUID } }, "t.id = $1::uuid", [UUID]],
    ["uuid eq of a non-uuid matches nothing", { id: { eq: "nope" } }, "FALSE", []],
    ["uuid notEq of a non-uuid matches everything", { id: { notEq: "nope" } }, "TRUE", []],
    ["uuid in drops non-uuids", { id: { in: [UUID, "x"] } }, "t.id = ANY($1::uuid[])", [[UUID]]],
    ["empty in", { code: { in: [] } }, "FALSE", []],
    ["empty notIn", { code: { notIn: [] } }, "TRUE", []],
    ["string notEq keeps nulls", { code: { notEq: "A" } }, "t.code IS DISTINCT FROM $1::text", ["A"]],
    [
      "string notIn keeps nulls",
      { code: { notIn: ["A"] } },
      "(t.code IS NULL OR NOT (t.code = ANY($1::text[])))",
      [["A"]],
    ],
    ["like is a regex", { code: { like: "^A" } }, "t.code::text ~ $1::text", ["^A"]],
    [
      "two operators are ANDed",
      { code: { eq: "A", notEq: "B" } },
      "(t.code = $1::text AND t.code IS DISTINCT FROM $2::text)",
      ["A", "B"],
    ],
    [
      "date gte",
      { created: { gte: "2026-01-01T00:00:00Z" } },
      "t.created >= $1::timestamptz",
      [new Date("2026-01-01T00:00:00Z")],
    ],
    [
      "date after a relative duration",
      { created: { after: "-P1D" } },
      "t.created > $1::timestamptz",
      [new Date("2026-01-09T00:00:00.000Z")],
    ],
    ["enum in", { status: { in: ["OPEN"] } }, "t.status = ANY($1::text[])", [["OPEN"]]],
    ["any element eq", { name: { eq: "Tea" } }, "t.names @> $1::text[]", [["Tea"]]],
    [
      "any element like",
      { name: { like: "T.a" } },
      "EXISTS (SELECT 1 FROM unnest(t.names) AS e(v) WHERE e.v ~ $1::text)",
      ["T.a"],
    ],
    ["contains eq", { methods: { contains: { eq: "BATCH" } } }, "t.methods @> $1::text[]", [["BATCH"]]],
    [
      "contains notEq",
      { methods: { contains: { notEq: "BATCH" } } },
      "NOT (t.methods @> $1::text[])",
      [["BATCH"]],
    ],
    [
      "localized eq",
      { nameLocalized: { de_DE: { eq: "Tee" } } },
      "t.nl @> jsonb_build_object($1::text, $2::text)",
      ["de_DE", "Tee"],
    ],
    [
      "localized exists",
      { nameLocalized: { de_DE: { exists: false } } },
      "(t.nl -> $1::text) IS NULL",
      ["de_DE"],
    ],
    [
      "attribute eq boolean",
      { customAttributes: { vip: { eq: true } } },
      "t.ca @> jsonb_build_object($1::text, $2::jsonb)",
      ["vip", "true"],
    ],
    [
      "attribute number gt",
      { customAttributes: { weight: { gt: 5 } } },
      "(CASE WHEN jsonb_typeof(t.ca -> $1::text) = 'number' THEN (t.ca ->> $1::text)::numeric > $2::numeric ELSE false END)",
      ["weight", 5],
    ],
    [
      "or of and",
      { or: [{ code: { eq: "A" } }, { and: [{ code: { eq: "B" } }, { status: { eq: "OPEN" } }] }] },
      "(t.code = $1::text OR (t.code = $2::text AND t.status = $3::text))",
      ["A", "B", "OPEN"],
    ],
    [
      "field and or are ANDed",
      { code: { eq: "A" }, or: [{ status: { eq: "OPEN" } }] },
      "(t.code = $1::text AND (t.status = $2::text))",
      ["A", "OPEN"],
    ],
  ])("%s", (_name, query, sql, params) => {
    expect(tr(query)).toEqual({ sql, params });
  });

  it.each([
    ["unknown field", { nope: { eq: "x" } }, "UNKNOWN_QUERY_FIELD", "/query/nope"],
    ["unknown operator", { code: { gt: "x" } }, "UNKNOWN_QUERY_OPERATOR", "/query/code/gt"],
    ["like where not allowed", { status: { like: "x" } }, "UNKNOWN_QUERY_OPERATOR", "/query/status/like"],
    ["wrong value type", { code: { eq: 5 } }, "INVALID_QUERY_VALUE", "/query/code/eq"],
    ["enum value not in enum", { status: { eq: "LOST" } }, "INVALID_QUERY_VALUE", "/query/status/eq"],
    [
      "too many in values",
      { code: { in: Array.from({ length: 26 }, (_, i) => `v${i}`) } },
      "INVALID_QUERY_VALUE",
      "/query/code/in",
    ],
    ["too long string", { code: { eq: "x".repeat(257) } }, "INVALID_QUERY_VALUE", "/query/code/eq"],
    ["bad date", { created: { gt: "yesterday" } }, "INVALID_QUERY_VALUE", "/query/created/gt"],
    ["bad duration", { created: { after: "P1X" } }, "INVALID_DURATION", "/query/created/after"],
    ["and not an array", { and: {} }, "INVALID_QUERY_VALUE", "/query/and"],
    ["unknown field inside or", { or: [{ nope: { eq: "x" } }] }, "UNKNOWN_QUERY_FIELD", "/query/or/0/nope"],
    [
      "bad attribute key",
      { customAttributes: { "a.b": { eq: 1 } } },
      "INVALID_QUERY_VALUE",
      "/query/customAttributes/a.b",
    ],
    [
      "bad locale",
      { nameLocalized: { "not a locale": { eq: "x" } } },
      "INVALID_QUERY_VALUE",
      "/query/nameLocalized/not a locale",
    ],
    ["empty operator object", { code: {} }, "INVALID_QUERY_VALUE", "/query/code"],
    ["query not an object", [], "INVALID_QUERY_VALUE", "/query"],
  ])("rejects %s", (_name, query, code, field) => {
    let err: unknown;
    try {
      tr(query);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ kind: "invalid", code, field });
  });

  it("limits nesting depth", () => {
    let q: Record<string, unknown> = { code: { eq: "x" } };
    for (let i = 0; i < 10; i++) q = { and: [q] };
    expect(() => tr(q)).toThrow(/nested at most/);
  });

  it("never puts values into the SQL text", () => {
    const evil = "'; drop table t; --";
    const { sql, params } = tr({
      code: { eq: evil },
      nameLocalized: { de_DE: { eq: evil } },
      customAttributes: { k: { eq: evil } },
    });
    expect(sql).not.toContain("drop table");
    expect(params).toContain(evil);
  });
});

describe("number and nested fields", () => {
  const nested: QueryFields = {
    priority: {
      kind: "nested",
      fields: {
        label: { kind: "enum", column: "t.label", values: ["LOW", "HIGH"], ops: ["eq", "notEq", "in"] },
        sequence: { kind: "number", column: "t.seq" },
      },
    },
  };
  const run = (query: unknown) => {
    const b = new SqlBuilder();
    return { sql: translateQuery(query as never, nested, b, NOW), params: b.params };
  };

  it("translates each number operator and ANDs the sub-fields", () => {
    expect(run({ priority: { label: { eq: "HIGH" }, sequence: { gte: 2, lt: 5 } } })).toEqual({
      sql: "(t.label = $1::text AND (t.seq >= $2::numeric AND t.seq < $3::numeric))",
      params: ["HIGH", 2, 5],
    });
    expect(run({ priority: { sequence: { in: [1, 3] } } }).sql).toBe("t.seq = ANY($1::numeric[])");
    expect(run({ priority: { sequence: { notIn: [] } } }).sql).toBe("TRUE");
    expect(run({ priority: { sequence: { notEq: 1 } } }).sql).toBe("t.seq IS DISTINCT FROM $1::numeric");
  });

  it.each([
    [{ priority: { sequence: { eq: "2" } } }, "/query/priority/sequence/eq"],
    [{ priority: { sequence: { in: Array(26).fill(1) } } }, "/query/priority/sequence/in"],
    [{ priority: { colour: { eq: "red" } } }, "/query/priority/colour"],
    [{ priority: {} }, "/query/priority"],
    [{ priority: "HIGH" }, "/query/priority"],
  ])("refuses %j naming %s", (query, field) => {
    try {
      run(query);
      expect.fail("accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).field).toBe(field);
    }
  });
});
