/**
 * The fuzz's hostile mode: values and requests made to break a parser, a validator, an encoder or a
 * database rather than a rule — nesting depth, NUL and lone surrogates, bytes that are not UTF-8,
 * numbers beyond what JSON can keep, dates beyond what Postgres holds, prototype-named keys and
 * roles, absolute-form request targets, keys written twice, GraphQL fragment fan-outs.
 */
import pg from "pg";
import type { Fuzz } from "./fuzz.ts";

/** A JSON number (or other literal) written as raw text into the body, e.g. 1e400. */
export const RAW = (text: string) => `@@RAW:${text}@@`;

/** The raw text a {@link RAW} marker stands for, or undefined when `value` is none. */
export const rawOf = (value: unknown): string | undefined =>
  typeof value === "string" ? /^@@RAW:(.*)@@$/.exec(value)?.[1] : undefined;

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

// ---------------------------------------------------------------------------------------------
// Callback URLs that hide a refused IPv4 address in an IPv6 one (the SSRF guard must see through)

/**
 * IPv4 ranges the webhooks' SSRF guard refuses, as [first octets, prefix length]. Loopback is left
 * out: the test system allows 127.0.0.0/8 (and ::1), so it would be accepted there.
 */
const REFUSED_V4: readonly (readonly [readonly number[], number])[] = [
  [[10, 0, 0, 0], 8],
  [[172, 16, 0, 0], 12],
  [[192, 168, 0, 0], 16],
  [[169, 254, 0, 0], 16],
  [[100, 64, 0, 0], 10],
  [[0, 0, 0, 0], 8],
  [[224, 0, 0, 0], 4],
  [[240, 0, 0, 0], 4],
  [[198, 18, 0, 0], 15],
  [[192, 0, 0, 0], 24],
  [[192, 0, 2, 0], 24],
  [[198, 51, 100, 0], 24],
  [[203, 0, 113, 0], 24],
];

/** A random address of a refused IPv4 range, as four octets. */
function refusedIPv4(f: Fuzz): number[] {
  const [base, prefix] = f.pick(REFUSED_V4);
  const net = base.reduce((n, o) => n * 256 + o, 0);
  const host = Math.floor(f.r() * 2 ** (32 - prefix));
  const n = net + host;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
}

const randomBytes = (f: Fuzz, n: number) => Array.from({ length: n }, () => f.int(256));

/**
 * The forms of IPv6 address that carry an IPv4 address, each as 16 bytes around `v4`: IPv4-compatible
 * ::/96, IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96, NAT64 64:ff9b::/96, local-use
 * NAT64 64:ff9b:1::/48 (the address at the place of any RFC 6052 prefix length, the other bits
 * random), 6to4 2002::/16 (random subnet and host), and Teredo 2001::/32 (refused whatever it holds).
 */
export const EMBEDDING_FORMS = {
  compatible: (v4: number[]) => [...Array(12).fill(0), ...(v4[0] === 0 ? [10, ...v4.slice(1)] : v4)],
  mapped: (v4: number[]) => [...Array(10).fill(0), 0xff, 0xff, ...v4],
  translated: (v4: number[]) => [...Array(8).fill(0), 0xff, 0xff, 0, 0, ...v4],
  nat64: (v4: number[]) => [0, 0x64, 0xff, 0x9b, ...Array(8).fill(0), ...v4],
  nat64Local: (v4: number[], f: Fuzz) => {
    const bytes = [0, 0x64, 0xff, 0x9b, 0, 1, ...randomBytes(f, 10)];
    const at = f.pick([
      [6, 7, 9, 10],
      [7, 9, 10, 11],
      [9, 10, 11, 12],
      [12, 13, 14, 15],
    ]);
    at.forEach((i, k) => {
      bytes[i] = v4[k] as number;
    });
    return bytes;
  },
  sixToFour: (v4: number[], f: Fuzz) => [0x20, 0x02, ...v4, ...randomBytes(f, 10)],
  teredo: (_v4: number[], f: Fuzz) => [0x20, 0x01, 0, 0, ...randomBytes(f, 12)],
} satisfies Record<string, (v4: number[], f: Fuzz) => number[]>;

/**
 * 16 bytes as IPv6 text in one of the spellings a parser accepts: compressed or not (the longest
 * zero run), leading zeros or not, upper or lower case, the last 32 bits dotted or not.
 */
export function ipv6Text(bytes: readonly number[], f: Fuzz): string {
  const words = Array.from(
    { length: 8 },
    (_, i) => ((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number),
  );
  const dotted = f.r() < 0.35;
  const head = dotted ? words.slice(0, 6) : words;
  const upper = f.r() < 0.2;
  const parts = head.map((w) => {
    const hex = f.r() < 0.2 ? w.toString(16).padStart(4, "0") : w.toString(16);
    return upper ? hex.toUpperCase() : hex;
  });
  const tail = dotted ? [bytes.slice(12, 16).join(".")] : [];
  let start = -1;
  let length = 0;
  for (let i = 0; i < head.length; i++) {
    let j = i;
    while (j < head.length && head[j] === 0) j++;
    if (j - i > length) [start, length] = [i, j - i];
    i = j;
  }
  if (length > 0 && f.r() < 0.75) {
    return `${parts.slice(0, start).join(":")}::${[...parts.slice(start + length), ...tail].join(":")}`;
  }
  return [...parts, ...tail].join(":");
}

/**
 * A callback URL whose host hides a refused IPv4 address: in an IPv6 address of one of the
 * {@link EMBEDDING_FORMS}, or (one in eight) an IPv4 address spelled as one number, in hex or octal.
 * http or https, with or without a port (never 0), a path and a query.
 */
export function embeddedIPv4CallbackUrl(f: Fuzz): string {
  const v4 = refusedIPv4(f);
  let host: string;
  if (f.r() < 0.125) {
    const n =
      (((v4[0] as number) << 24) >>> 0) +
      ((v4[1] as number) << 16) +
      ((v4[2] as number) << 8) +
      (v4[3] as number);
    host = f.pick([
      String(n),
      `0x${n.toString(16)}`,
      v4.map((o) => `0x${o.toString(16)}`).join("."),
      v4.map((o) => `0${o.toString(8)}`).join("."),
      `${v4[0]}.${((v4[1] as number) << 16) + ((v4[2] as number) << 8) + (v4[3] as number)}`,
    ]);
  } else {
    const form = f.pick(Object.values(EMBEDDING_FORMS));
    host = `[${ipv6Text(form(v4, f), f)}]`;
  }
  const port = f.r() < 0.5 ? `:${1 + f.int(65535)}` : "";
  return `${f.pick(["http", "https", "HTTPS"])}://${host}${port}/${f.pick(["", "hook", "latest/meta-data", "a/../b"])}${f.r() < 0.3 ? "?x=1" : ""}`;
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

/** The stored SVG icons (in the loadunits schema of the database at `dbUrl`) that have active content. */
export async function storedActiveSvgs(dbUrl: string): Promise<string[]> {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const svgs = await db.query<{ text: string }>(
      "select convert_from(content, 'UTF8') as text from loadunits.icon where media_type = 'image/svg+xml'",
    );
    return svgs.rows.map((r) => r.text).filter((text) => ACTIVE_SVG_TEXT.test(text));
  } finally {
    await db.end();
  }
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
