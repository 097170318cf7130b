import { describe, expect, it } from "vitest";
import { gql } from "./graphql-js.ts";
import { checkLimits, costOf, DEFAULT_LIMITS, depthOf } from "./limits.ts";
import { checkLiterals, checkSource, MAX_TOKENS, tokenCount } from "./requests.ts";
import { buildSdl } from "./schema.ts";

const schema = gql.buildSchema(buildSdl());
const cost = (q: string, variables?: Record<string, unknown>) => costOf(schema, gql.parse(q), variables);

const VIEW = `query View($f: String!, $n: Int) {
  pickJobs(first: $n, filter: { facilityRef: { eq: $f }, status: { eq: OPEN } }) {
    edges { node { id status orderRef
      pickLineItems { id quantity picked status article { tenantArticleId title imageUrl } }
      loadUnits { id status stack { id } } } }
  }
}`;

describe("query cost", () => {
  it("multiplies a connection's selection by its page and an unpaged object list by 10", () => {
    expect(cost('{ category(id: "x") { id version } }')).toBe(3);
    expect(cost("{ categories(first: 10) { edges { node { id } } } }")).toBe(1 + 10 * (1 + 1 + 1));
    expect(cost("{ categories { edges { node { id } } } }")).toBe(1 + 20 * 3);
    expect(cost("{ facilities { totalCount } }")).toBe(1 + 25 * 1);
    expect(cost('{ pickJob(id: "x") { loadUnits { id } } }')).toBe(1 + 1 + 10 * 1);
  });

  it("lets the back-office view through with the defaults, even at the largest page, and stops a deep fan-out", () => {
    expect(cost(VIEW, { f: "f", n: 20 })).toBeLessThan(DEFAULT_LIMITS.maxComplexity / 10);
    expect(() => checkLimits(DEFAULT_LIMITS, schema, gql.parse(VIEW), { f: "f", n: 250 })).not.toThrow();
    const fanOut =
      "{ pickJobs(first: 250) { edges { node { pickLineItems { article { attributes { key value category } } } } } } }";
    expect(() => checkLimits(DEFAULT_LIMITS, schema, gql.parse(fanOut), {})).toThrow(
      /costs \d+, more than the limit of 50000/,
    );
  });

  it("depth: fields on the longest path; fragments add no level; a limit over it is QUERY_TOO_DEEP", () => {
    expect(depthOf(gql.parse("{ a }"))).toBe(1);
    expect(depthOf(gql.parse("{ a { b { c } } d }"))).toBe(3);
    expect(depthOf(gql.parse("{ a { ... on T { b { ...F } } } } fragment F on U { c { d } }"))).toBe(4);
    expect(depthOf(gql.parse("query A { a } query B { a { b } }"))).toBe(2);
    expect(depthOf(gql.parse("{ a { ...F } } fragment F on T { b { ...F } }"))).toBe(2);
    const deep =
      '{ pickJob(id: "x") { loadUnits { stack { facilities { address { phoneNumbers { value } } } } } } }';
    expect(() => checkLimits({ ...DEFAULT_LIMITS, maxDepth: 5 }, schema, gql.parse(deep), {})).toThrow(
      /7 fields deep, more than the limit of 5/,
    );
  });
});

/**
 * Two fragments per level, each spreading both fragments of the next level: 2^(n+1) paths through
 * 2n + 2 fragments. `level(i)` is what a fragment of level i selects besides its spreads.
 */
const fanOut = (n: number, on = "Query", level = (_i: number) => "", leaf = "__typename") => {
  const parts = ["query { ...A0 ...B0 }"];
  for (let i = 0; i < n; i++) {
    for (const f of ["A", "B"])
      parts.push(`fragment ${f}${i} on ${on} { ${level(i)} ...A${i + 1} ...B${i + 1} }`);
  }
  parts.push(`fragment A${n} on ${on} { ${leaf} }`, `fragment B${n} on ${on} { ${leaf} }`);
  return parts.join("\n");
};

describe("fragment fan-out: every check before the resolvers is linear in the document", () => {
  it("n = 30 (2.5 KB, 2^31 paths): source checks, parse, validation, depth and cost in milliseconds; too costly", () => {
    const source = fanOut(30);
    expect(tokenCount(source, MAX_TOKENS)).toBeLessThan(MAX_TOKENS);
    const started = performance.now();
    checkSource(source);
    const document = gql.parse(source, { maxTokens: MAX_TOKENS });
    expect(gql.validate(schema, document)).toEqual([]);
    checkLiterals(document);
    expect(depthOf(document)).toBe(1);
    // Each spread counts as if written out: 2^31 __typename fields.
    expect(costOf(schema, document, {})).toBe(2 ** 31);
    expect(() => checkLimits(DEFAULT_LIMITS, schema, document, {})).toThrow(/costs 2147483648, more than/);
    // Walking every spread again took 835 ms at n = 22 (and doubles with each level).
    expect(performance.now() - started).toBeLessThan(100);
  });

  it("the depth through a fan-out of nested fragments is measured once per fragment", () => {
    // Each level adds one field: n + 1 deep, 2^(n+1) paths.
    const parts = ["{ ...A0 ...B0 }", "fragment A40 on T { leaf }", "fragment B40 on T { leaf }"];
    for (let i = 0; i < 40; i++)
      for (const f of ["A", "B"]) parts.push(`fragment ${f}${i} on T { x { ...A${i + 1} ...B${i + 1} } }`);
    const document = gql.parse(parts.join("\n"));
    const started = performance.now();
    expect(depthOf(document)).toBe(41);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it("a small fan-out costs what its spreads add up to and passes", () => {
    const document = gql.parse(fanOut(3, "Query", (i) => `c${i}: categories(first: 2) { totalCount }`));
    expect(gql.validate(schema, document)).toEqual([]);
    // Level i is spread 2^(i+1) times; its field costs 1 + 2 * 1.
    expect(costOf(schema, document, {})).toBe((2 + 4 + 8) * 3 + 16);
    expect(() => checkLimits(DEFAULT_LIMITS, schema, document, {})).not.toThrow();
  });

  it("@skip and @include with variables count as they will run, in fragments too", () => {
    const query = `query Q($yes: Boolean!) { ...F categories(first: 5) @include(if: $yes) { totalCount } }
      fragment F on Query { facilities(first: 3) @skip(if: $yes) { totalCount } }`;
    const document = gql.parse(query);
    expect(costOf(schema, document, { yes: true })).toBe(1 + 5);
    expect(costOf(schema, document, { yes: false })).toBe(1 + 3);
  });
});
