import { describe, expect, it } from "vitest";
import { gql } from "./graphql-js.ts";
import {
  checkParsed,
  checkSource,
  literalNesting,
  MAX_TOKENS,
  sourceNesting,
  tokenCount,
} from "./requests.ts";

describe("nesting checks before GraphQL parses or runs", () => {
  it("counts brackets in a document's text, not inside strings, block strings or comments", () => {
    expect(sourceNesting("{ a { b(x: [1, {y: 2}]) } }", 100)).toBe(5);
    expect(sourceNesting('{ a(s: "{{{{[[[[") b(t: """ {{{{ \\""" [[[ """) # {{{{{\n }', 100)).toBe(2);
    expect(sourceNesting('{ a(s: "\\"{{{") }', 100)).toBe(2);
    expect(sourceNesting("[".repeat(10_000), 64)).toBe(65);
  });

  it("measures input values written in the document (objects and lists)", () => {
    expect(literalNesting(gql.parse("{ a(x: 1) }"))).toBe(0);
    expect(literalNesting(gql.parse("{ a(x: {b: [{c: 1}]}) { b(y: [[1]]) } }"))).toBe(3);
    const deep = `{ a(x: ${"{b: ".repeat(40)}1${"}".repeat(40)}) }`;
    expect(literalNesting(gql.parse(deep))).toBe(40);
  });
});

describe("the document's size, bounded before it is parsed", () => {
  const code = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      return (err as { code?: string }).code;
    }
    return undefined;
  };

  it("counts tokens (not comments or commas), stopping past the limit or at a syntax error", () => {
    // Commas are insignificant, like white space.
    expect(tokenCount('{ a(x: 1, s: "{ b c }") # d e f\n }', 100)).toBe(11);
    expect(tokenCount("{ a ".repeat(100_000), 10)).toBe(11);
    expect(tokenCount("{ a ~ b c }", 100)).toBe(2);
    expect(tokenCount(gql.getIntrospectionQuery(), MAX_TOKENS)).toBeLessThan(MAX_TOKENS / 5);
  });

  it(`more than ${MAX_TOKENS} tokens is QUERY_TOO_LARGE, exactly ${MAX_TOKENS} is taken`, () => {
    const fields = (n: number) => `{ ${"a ".repeat(n - 2)}}`;
    expect(code(() => checkSource(fields(MAX_TOKENS)))).toBeUndefined();
    expect(code(() => checkSource(fields(MAX_TOKENS + 1)))).toBe("QUERY_TOO_LARGE");
  });

  it("a document that was not parsed from text (mercurius' JSON syntax tree) is refused", () => {
    expect(code(() => checkParsed(gql.parse("{ a }")))).toBeUndefined();
    expect(code(() => checkParsed(gql.parse("{ a }", { noLocation: true })))).toBe("GRAPHQL_PARSE_FAILED");
    expect(code(() => checkParsed({ kind: "Document" } as never))).toBe("GRAPHQL_PARSE_FAILED");
  });
});
