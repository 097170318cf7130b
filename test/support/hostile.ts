/**
 * The fuzz's hostile mode: values and requests made to break a parser, a validator, an encoder or a
 * database rather than a rule — nesting depth, NUL and lone surrogates, bytes that are not UTF-8,
 * numbers beyond what JSON can keep, dates beyond what Postgres holds, prototype-named keys and
 * roles, absolute-form request targets, keys written twice, GraphQL fragment fan-outs.
 */
import type { Fuzz } from "./fuzz.ts";

/** A JSON number (or other literal) written as raw text into the body, e.g. 1e400. */
export const RAW = (text: string) => `@@RAW:${text}@@`;

/** JSON text of `value`, with {@link RAW} markers replaced by their raw text. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"@@RAW:(.*?)@@"/g, "$1");
}

export const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
  "isPrototypeOf",
] as const;

export const HOSTILE_STRINGS = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\ud83d",
  "💥\u202e",
  "+275760-09-13T00:00:00.000Z",
  "-271821-04-20T00:00:00.000Z",
  "+010000-01-01T00:00:00Z",
  "2026-01-01T00:00:00-23:59",
  "0000-00-00T00:00:00Z",
  "P99999999Y",
  "-P99999999Y",
  "PT99999999999999999999H",
  "(a+)+$",
  "(",
  "[[:alpha:]",
  "\\",
  "%00",
  "urn:fft:constructor:__proto__:x",
  "x".repeat(5000),
  ...PROTOTYPE_NAMES,
];

export const RAW_NUMBERS = [
  "1e400",
  "-1e400",
  "9007199254740993",
  "-9007199254740993",
  "123456789012345678901234567890",
  "1e308",
  "-0",
  "4.9e-324",
  "1.7976931348623157e309",
];

/** Strings for URLs: percent-escapes that are not UTF-8, NUL, prototype names, URN forms. */
export const HOSTILE_PATH_SEGMENTS = [
  "%00",
  "a%00b",
  "%C0%AF",
  "%ED%A0%80",
  "%FF",
  "%E2%82",
  "%F0%9F%92%A5",
  "urn:fft:category:tenantCategoryId:%00",
  "urn:fft:facility:tenantFacilityId:%ED%A0%80",
  "urn:fft:constructor:__proto__:x",
  "urn:fft:category:constructor:x",
  "urn:fft:facility:tenantFacilityId:__proto__",
  ...PROTOTYPE_NAMES,
  "x".repeat(2100),
  "..%2F..%2Fetc",
];

/** Nested objects/arrays `depth` deep. */
export function nested(depth: number, f: Fuzz): unknown {
  let v: unknown = f.pick(["leaf", 1, null, true]);
  for (let i = 0; i < depth; i++) {
    const k = f.int(4);
    v = k === 0 ? [v] : k === 1 ? { a: v } : k === 2 ? { and: [v] } : { or: [v, v] };
    if (k === 3 && i > 12) break; // "or" doubles the size: keep bodies under the size limit
  }
  return v;
}

/** An object with an own `__proto__` (or another prototype-named) key, as JSON.parse makes it. */
function protoObject(f: Fuzz): unknown {
  const key = f.pick(PROTOTYPE_NAMES);
  return JSON.parse(
    `{"${key}": {"polluted": true, "isAdmin": true}, "constructor": {"prototype": {"x": 1}}}`,
  );
}

/** One hostile JSON value. */
export function hostileValue(f: Fuzz): unknown {
  switch (f.int(6)) {
    case 0:
      return f.pick(HOSTILE_STRINGS);
    case 1:
      return RAW(f.pick(RAW_NUMBERS));
    case 2:
      return nested(20 + f.int(80), f);
    case 3:
      return protoObject(f);
    case 4:
      return { [f.pick(PROTOTYPE_NAMES)]: f.pick(HOSTILE_STRINGS) };
    default:
      return [RAW(f.pick(RAW_NUMBERS)), f.pick(HOSTILE_STRINGS)];
  }
}

/** Bytes that are not UTF-8, to splice into a JSON string. */
export const INVALID_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0xc0, 0xaf]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0xe2, 0x82]),
  Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
];

/** `json` with a non-UTF-8 sequence inside its first string (or appended). */
export function withInvalidBytes(json: string, f: Fuzz): Buffer {
  const at = json.indexOf('"') + 1;
  const bytes = Buffer.from(json, "utf8");
  const cut = Buffer.byteLength(json.slice(0, at));
  return Buffer.concat([bytes.subarray(0, cut), f.pick(INVALID_UTF8), bytes.subarray(cut)]);
}

/**
 * A GraphQL document of two fragments per level, each spreading both fragments of the next level:
 * 2^(n+1) paths to its `__typename` leaves in 2n + 2 fragments (n = 30: 2.5 KB). A check that walks
 * each spread again takes 2^n steps; execution merges the spreads and selects `__typename` once.
 */
export function fragmentFanOut(n: number): string {
  const parts = ["query FanOut { ...A0 ...B0 }"];
  for (let i = 0; i < n; i++)
    for (const f of ["A", "B"]) parts.push(`fragment ${f}${i} on Query { ...A${i + 1} ...B${i + 1} }`);
  parts.push(`fragment A${n} on Query { __typename }`, `fragment B${n} on Query { __typename }`);
  return parts.join("\n");
}

/**
 * `json` (JSON text, as {@link jsonText} writes it) with one of its keys written twice: `"k": first`
 * inserted before the first key of a random non-empty object, so JSON.parse would keep the original
 * value and drop `first` unseen. JSON without a non-empty object is wrapped in one.
 */
export function withDuplicateKey(json: string, first: string, f: Fuzz): string {
  const starts: number[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      for (i++; json[i] !== '"'; i++) if (json[i] === "\\") i++;
    } else if (c === "{" && json[i + 1] === '"') {
      starts.push(i + 1);
    }
  }
  if (starts.length === 0) return `{"a":${first},"a":${json}}`;
  const at = f.pick(starts);
  let end = at + 1;
  while (json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
  return `${json.slice(0, at)}${json.slice(at, end + 1)}:${first},${json.slice(at)}`;
}
