import { describe, expect, it } from "vitest";
import {
  checkJsonValue,
  firstDuplicateKey,
  JSON_LIMITS,
  nestingDepth,
  parseJsonBody,
  scanJson,
} from "./json-values.ts";

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

describe("duplicate keys", () => {
  const refusal = (text: string) => {
    try {
      parseJsonBody(bytes(text));
    } catch (err) {
      const e = err as { code?: string; field?: string; description?: string };
      return { code: e.code, field: e.field, description: e.description };
    }
    return undefined;
  };

  it.each([
    // The earlier value would escape every check: JSON.parse keeps the last one.
    ['{"name":"a\\u0000b","x":1,"name":"x"}', "/name", "name"],
    ['{"a":1,"a":1}', "/a", "a"],
    ['{"n\\u0061me":1,"name":2}', "/name", "name"],
    ['{"a":{"b":[{"c":1},{"d":1,"d":2}]}}', "/a/b/1/d", "d"],
    ['[1,{"x":{"y":1,"y":{}}}]', "/1/x/y", "y"],
    ['{"a/b~c":1,"a/b~c":2}', "/a~1b~0c", "a/b~c"],
    ['{"":1,"":2}', "/", ""],
    ['\ufeff{"a" : 1 , "a" : 2}', "/a", "a"],
  ])("%s: 400 DUPLICATE_KEY at %s", (text, field, key) => {
    const e = refusal(text);
    expect(e).toMatchObject({ code: "DUPLICATE_KEY", field });
    expect(e?.description).toContain(`the key ${JSON.stringify(key)} appears more than once`);
  });

  it.each([
    '{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}',
    '{"a":"{\\"a\\":1,\\"a\\":2}","b":["a","a"]}',
    '{"a\\"":1,"a":2,"a\\\\":3}',
    '{"1":1,"01":2,"1.0":3}',
    "[]",
    "{}",
    '"a"',
  ])("%s: each key once, taken", (text) => {
    expect(refusal(text)).toBeUndefined();
  });

  it("JSON that is a part of a request is named in the pointers (GraphQL's GET variables)", () => {
    const field = (text: string) => {
      try {
        parseJsonBody(bytes(text), "variables");
      } catch (err) {
        return [(err as { code?: string }).code, (err as { field?: string }).field];
      }
      return undefined;
    };
    expect(field('{"id":"x","id":"y"}')).toEqual(["DUPLICATE_KEY", "/variables/id"]);
    expect(field('{"n":1e400}')).toEqual(["INVALID_NUMBER", "/variables/n"]);
    expect(field("{")).toEqual(["MALFORMED_JSON", "variables"]);
  });

  it("the scan counts every key written; the value check counts the parsed ones", () => {
    const text = '{"a":[{"b":1,"c":{"d":[]}},"{\\"x\\":1}"],"e":{},"a":2}';
    expect(scanJson(bytes(text), 32)).toEqual({ depth: 5, keys: 6 });
    expect(checkJsonValue(JSON.parse(text))).toBe(2);
    expect(firstDuplicateKey(text)).toEqual({ key: "a", path: ["a"] });
    expect(firstDuplicateKey('{"a":[{"b":1},{"c":1,"b":2}]}')).toBeUndefined();
  });
});
