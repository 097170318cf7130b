import { describe, expect, it } from "vitest";
import { checkJsonValue, JSON_LIMITS, nestingDepth, parseJsonBody } from "./json.ts";

const bytes = (s: string) => Buffer.from(s, "utf8");
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
};

describe("nestingDepth", () => {
  it.each([
    ["1", 0],
    ["{}", 1],
    ['[{"a":[1]}]', 3],
    ['{"s":"[[[[{{{{"}', 1],
    ['{"s":"\\"[[["}', 1],
    ['["\\\\",[[]]]', 3],
  ])("%s -> %i", (text, depth) => {
    expect(nestingDepth(bytes(text), 10)).toBe(depth);
  });
  it("stops one past the limit", () => {
    expect(nestingDepth(bytes("[".repeat(1000)), 5)).toBe(6);
  });
});

describe("parseJsonBody", () => {
  it("parses JSON (a BOM is allowed)", () => {
    expect(parseJsonBody(bytes('{"a":[1,"ü"]}'))).toEqual({ a: [1, "ü"] });
    expect(parseJsonBody(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toEqual({});
  });
  it.each([
    ["not UTF-8", Buffer.from([0x22, 0xff, 0x22]), "INVALID_ENCODING"],
    [
      "too deep",
      bytes(`${"[".repeat(JSON_LIMITS.maxDepth + 1)}${"]".repeat(JSON_LIMITS.maxDepth + 1)}`),
      "NESTING_TOO_DEEP",
    ],
    ["not JSON", bytes("{"), "MALFORMED_JSON"],
    ["1e400", bytes('{"q":1e400}'), "INVALID_NUMBER"],
    ["2^53+1", bytes("[9007199254740993]"), "INVALID_NUMBER"],
    ["1e20", bytes("[1e20]"), "INVALID_NUMBER"],
    ["NUL", bytes('["a\\u0000"]'), "INVALID_CHARACTER"],
    ["lone surrogate", bytes('{"k":"\\ud800"}'), "INVALID_CHARACTER"],
    ["lone surrogate key", bytes('{"\\udfff":1}'), "INVALID_CHARACTER"],
    ["__proto__ key", bytes('{"a":{"__proto__":{"x":1}}}'), "INVALID_KEY"],
  ])("refuses %s", (_name, body, expected) => {
    expect(code(() => parseJsonBody(body))).toBe(expected);
  });
  it("takes the largest safe integers, small floats and the depth limit itself", () => {
    const deepest = `${"[".repeat(JSON_LIMITS.maxDepth)}${"]".repeat(JSON_LIMITS.maxDepth)}`;
    expect(() => parseJsonBody(bytes(deepest))).not.toThrow();
    expect(parseJsonBody(bytes("[9007199254740991,-9007199254740991,0.1,1e-300]"))).toEqual([
      9007199254740991, -9007199254740991, 0.1, 1e-300,
    ]);
    expect(() => checkJsonValue({ constructor: { prototype: 1 }, toString: "x" })).not.toThrow();
  });
});
