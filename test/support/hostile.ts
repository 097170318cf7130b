/**
 * The fuzz's hostile mode: values and requests made to break a parser, a validator, an encoder or a
 * database rather than a rule — nesting depth, NUL and lone surrogates, bytes that are not UTF-8,
 * numbers beyond what JSON can keep, dates beyond what Postgres holds, prototype-named keys and
 * roles, absolute-form request targets.
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

// --- SVG with active content ---------------------------------------------------------------------

const SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"';
const XHTML_NS = 'xmlns="http://www.w3.org/1999/xhtml"';
const JS = [
  "javascript:alert(1)",
  " JaVaScRiPt:alert(1)",
  "&#106;avascript:alert(1)",
  "java&#x09;script:alert(1)",
];

/** Pieces of SVG that make it active: each an svg body, or a whole document (leading `<`? or `<!`). */
const ACTIVE_SVG_PARTS: ((f: Pick<Fuzz, "pick">) => string)[] = [
  (f) =>
    f.pick([
      "<script>alert(1)</script>",
      "<script><![CDATA[alert(1)]]></script>",
      "<SCRIPT>alert(1)</SCRIPT>",
    ]),
  () => '<svg:script xmlns:svg="http://www.w3.org/2000/svg" href="https://evil.example/x.js"/>',
  () => `<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>`,
  (f) => `<rect ${f.pick(["onload", "onclick", "OnMouseOver", "onfocusin"])}="alert(1)"/>`,
  () => '<animate attributeName="x" onbegin="alert(1)" dur="1s"/>',
  (f) => `<a href="${f.pick(JS)}"><rect width="9" height="9"/></a>`,
  (f) => `<a xlink:href='${f.pick(JS)}'><text>x</text></a>`,
  (f) =>
    `<image ${f.pick(["href", "xlink:href"])}="${f.pick([
      "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+",
      "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
      "https://evil.example/pixel.png",
      "//evil.example/pixel.png",
    ])}"/>`,
  () =>
    `<foreignObject width="9" height="9"><body ${XHTML_NS}><img src="x" onerror="alert(1)"/></body></foreignObject>`,
  () => `<foreignObject><iframe ${XHTML_NS} src="javascript:alert(1)"/></foreignObject>`,
  (f) => `<use ${f.pick(["href", "xlink:href"])}="https://evil.example/sprite.svg#icon"/>`,
  () => '<filter id="f"><feImage href="https://evil.example/x.svg"/></filter>',
  (f) =>
    `<a><${f.pick(["set", "animate"])} attributeName="${f.pick(["href", "xlink:href"])}" to="javascript:alert(1)" values="javascript:alert(1)"/><rect/></a>`,
  (f) =>
    `<style>${f.pick(['@import "https://evil.example/x.css";', "rect{fill:url(https://evil.example/p#x)}", "rect{fill:\\75rl(//evil.example/x)}"])}</style>`,
  () =>
    '<rect style="background-image:url(&quot;https://evil.example/x&quot;)" filter="url(https://evil.example/f#f)"/>',
  () => `<x:embed xmlns:x="http://www.w3.org/1999/xhtml" src="https://evil.example/x.swf"/>`,
  () => `<!DOCTYPE svg [<!ENTITY x "<script>alert(1)</script>">]><svg ${SVG_NS}>&x;</svg>`,
  () => `<?xml-stylesheet type="text/css" href="https://evil.example/x.css"?><svg ${SVG_NS}><rect/></svg>`,
];

/**
 * An SVG icon with active content, base64 (a NamedFile's content), in one of many forms: script
 * elements (CDATA, upper case, prefixed, XHTML), event handlers, javascript:/data:/external URLs in
 * href/xlink:href (entity-encoded, mixed case), foreignObject, animated hrefs, CSS that loads,
 * XHTML embeds, entity definitions, a stylesheet instruction. An upload must refuse every one.
 */
export function hostileSvg(f: Pick<Fuzz, "pick">): string {
  const part = f.pick(ACTIVE_SVG_PARTS)(f);
  const prolog = f.pick(["", '<?xml version="1.0" encoding="UTF-8"?>\n', "<!-- icon -->\n", "  \n"]);
  const doc =
    part.startsWith("<!") || part.startsWith("<?") ? part : `<svg ${SVG_NS} viewBox="0 0 9 9">${part}</svg>`;
  return Buffer.from(prolog + doc).toString("base64");
}

/** Stored SVG text that holds active content (what {@link hostileSvg} plants, found by text). */
export const ACTIVE_SVG_TEXT =
  /<(\w+:)?script|&#|\son\w+\s*=|javascript|data:|foreignObject|xml-stylesheet|<!ENTITY|@import|evil\.example|<\w+:(embed|iframe)/i;
