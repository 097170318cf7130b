import { describe, expect, it } from "vitest";
import { gql } from "./graphql-js.ts";
import { checkLimits, costOf, DEFAULT_LIMITS, depthOf } from "./limits.ts";
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
