import { describe, expect, it } from "vitest";
import { gql } from "./graphql-js.ts";
import { literalNesting, sourceNesting } from "./requests.ts";

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
