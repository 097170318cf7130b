/**
 * Request bodies, checked once at the door so no route, schema, RPC encoder or database ever sees
 * what it cannot handle:
 *
 * - An empty body is no body, whatever the method and Content-Type (the platform's SDK sends
 *   `Content-Type: application/json` on every request, bodyless DELETEs included). A route that
 *   needs a body then fails its schema with a 400.
 * - JSON only (`application/json`); any other non-empty body is a 415.
 * - Strict UTF-8: invalid sequences, overlong encodings and encoded surrogates are a 400, never
 *   replaced with U+FFFD and stored.
 * - Nesting at most {@link JSON_LIMITS.maxDepth} levels, checked on the bytes before parsing (a
 *   bracket bomb costs a scan, not a parse, and no validator or encoder recurses deeper).
 * - Every string and key well-formed (no lone surrogates) and free of NUL; no `__proto__` keys;
 *   every number finite and, when integral, a safe integer (|n| <= 2^53 - 1), so nothing is
 *   silently rounded, turned into null or stored as Infinity.
 * - No key twice in one object: JSON.parse keeps the last value and drops the others unseen, so an
 *   earlier one would escape every check above (`{"name":"a\u0000b","name":"x"}`). The bracket scan
 *   counts the keys it passes and the value check counts the parsed ones; only when they differ is
 *   the text walked again to name the key. No second parse and no allocation per key on the way:
 *   measured against the scan without counting, on a 2.7 KB body (20-40 us of a 150-300 us door)
 *   and an 850 KB one (5-13 ms of 40-80 ms), the difference is within this machine's noise.
 *
 * REST bodies, /graphql's POST body and its GET `variables` all come through {@link parseJsonBody};
 * a service checks a direct caller's `Struct` body with {@link checkJsonValue} (rpc/body.ts).
 */
import { AppError, invalid } from "../errors.ts";

export const JSON_LIMITS = {
  /** Objects/arrays nested in each other (the body itself is level 1). */
  maxDepth: 32,
} as const;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const bad = (code: string, description: string, field?: string) => invalid(code, description, field);

/** What one pass over a JSON text's bytes finds before it is parsed. */
export interface JsonShape {
  /** The deepest nesting if it is at most `max`, else `max + 1` (the scan stops there). */
  depth: number;
  /** How many object keys the text writes (a key written twice counts twice). */
  keys: number;
}

/**
 * One pass over `bytes` (JSON text): its nesting and its keys (see {@link JsonShape}). Brackets
 * inside strings do not count; a string is a key when it comes right after `{` or after a comma in
 * an object. Meaningful for valid JSON only (anything else fails JSON.parse afterwards).
 */
export function scanJson(bytes: Uint8Array, max: number): JsonShape {
  let depth = 0;
  let deepest = 0;
  let keys = 0;
  let inString = false;
  let expectKey = false;
  // objects[d] is 1 when the container at depth d is an object (d <= max + 1 here).
  const objects = new Uint8Array(max + 2);
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
      if (expectKey) {
        keys++;
        expectKey = false;
      }
    } else if (c === 0x2c) {
      expectKey = objects[depth] === 1;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > max) return { depth: deepest, keys };
      }
      objects[depth] = c === 0x7b ? 1 : 0;
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return { depth: deepest, keys };
}

/**
 * The deepest nesting of `bytes` (JSON text) if it is at most `max`, else `max + 1` (the scan stops
 * there). Brackets inside strings do not count.
 */
export const nestingDepth = (bytes: Uint8Array, max: number): number => scanJson(bytes, max).depth;

/**
 * The first key of `text` (valid JSON) that its object already has, and where: the slow path, taken
 * only for a body the counts showed to have one.
 */
export function firstDuplicateKey(text: string): { key: string; path: (string | number)[] } | undefined {
  const frames: { keys?: Set<string>; key: string; index: number }[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      const top = frames.at(-1);
      if (expectKey && top?.keys) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key))
          return { key, path: [...frames.slice(0, -1).map((f) => (f.keys ? f.key : f.index)), key] };
        top.keys.add(key);
        top.key = key;
      }
      expectKey = false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      frames.push(c === 0x7b ? { keys: new Set(), key: "", index: 0 } : { key: "", index: 0 });
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c) {
      const top = frames.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    }
  }
  return undefined;
}

/** The JSON pointer of `path` (`/a/0/b`; `~` and `/` in a step escaped). */
export const pointer = (path: (string | number)[]) =>
  `/${path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

const MAX_WHOLE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Throws a 400 for a number no part of the system may receive, at `where()`: one that is not finite,
 * or a whole number past ±(2^53 - 1) (a JSON number beyond cannot be kept exactly; a 64-bit field's
 * bigint, kept as a JSON number in our documents, would change on the way).
 */
export function checkNumber(n: number | bigint, where: () => string): void {
  const whole =
    typeof n === "bigint"
      ? n <= MAX_WHOLE && n >= -MAX_WHOLE
      : !Number.isInteger(n) || Number.isSafeInteger(n);
  if (typeof n === "number" && !Number.isFinite(n))
    throw bad("INVALID_NUMBER", `${where()}: the number is out of range.`, where());
  if (!whole)
    throw bad(
      "INVALID_NUMBER",
      `${where()}: whole numbers must be between -9007199254740991 and 9007199254740991 (beyond, they cannot be kept exactly).`,
      where(),
    );
}

/** Throws a 400 for a string no part of the system may receive (NUL, a lone surrogate), at `where()`. */
export function checkString(s: string, where: () => string): void {
  if (s.includes("\u0000"))
    throw bad("INVALID_CHARACTER", `${where()}: strings must not contain NUL (\\u0000) characters.`, where());
  if (!s.isWellFormed())
    throw bad(
      "INVALID_CHARACTER",
      `${where()}: strings must be valid Unicode (a lone surrogate such as \\ud800 is not).`,
      where(),
    );
}

/**
 * Throws a 400 for the first value in `root` that no part of the system may receive (see the module
 * comment), named by its JSON pointer (below `at`). Iterative, and `root` is already depth-bounded,
 * so it cannot overflow the stack. Returns how many keys its objects have, all together.
 */
export function checkJsonValue(root: unknown, at: string[] = []): number {
  let keys = 0;
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: at }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      checkString(value, () => pointer(path));
    } else if (typeof value === "number") {
      checkNumber(value, () => pointer(path));
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === "object") {
      const own = Object.keys(value);
      keys += own.length;
      for (const key of own) {
        const at = () => pointer([...path, key]);
        checkString(key, at);
        if (key === "__proto__")
          throw bad("INVALID_KEY", `${at()}: "__proto__" is not allowed as a property name.`, at());
        stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
  return keys;
}

/**
 * The JSON pointer (below `base`) of the first object or array nested deeper than the limit in
 * `text` (or of the key written twice whose dropped value was), or undefined when the text does not
 * parse. The scan has bounded the text's size, not its
 * depth: JSON.parse may give up on a deep enough text (a RangeError), which is caught.
 */
function tooDeep(text: string, base: string[]): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Not in the value: then in a key's first value, which a key written twice dropped.
  const inValue = pathDeeperThan(value, JSON_LIMITS.maxDepth, base);
  if (inValue) return inValue;
  const dup = firstDuplicateKey(text);
  return dup ? pointer([...base, ...dup.path]) : undefined;
}

/** The JSON pointer (below `base`) of the first object or array of `root` nested deeper than `max`. */
export function pathDeeperThan(
  root: unknown,
  max: number,
  base: (string | number)[] = [],
): string | undefined {
  const stack: { value: unknown; path: (string | number)[]; depth: number }[] = [
    { value: root, path: base, depth: 0 },
  ];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth + 1 > max) return pointer(path);
    for (const [k, child] of Object.entries(value)) {
      stack.push({ value: child, path: [...path, Array.isArray(value) ? Number(k) : k], depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * Parses and checks a JSON body (bytes as received). `name`, for JSON that is a part of a request
 * (GraphQL's GET `variables`), names it in the errors: as a whole, and as the first step of the
 * pointers to what is wrong inside (`/variables/id`, as in a POST body).
 */
export function parseJsonBody(bytes: Uint8Array, name?: string): unknown {
  const what = name ?? "The body";
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw bad("INVALID_ENCODING", `${what} is not valid UTF-8.`, name);
  }
  const shape = scanJson(bytes, JSON_LIMITS.maxDepth);
  if (shape.depth > JSON_LIMITS.maxDepth) {
    const at = tooDeep(text, name ? [name] : []);
    throw bad(
      "NESTING_TOO_DEEP",
      `Objects and arrays may be nested at most ${JSON_LIMITS.maxDepth} levels deep${name ? ` in ${name}` : ""}${at ? ` (${at} is deeper)` : ""}.`,
      at ?? name,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid", {
      code: "MALFORMED_JSON",
      summary: "Invalid input.",
      description: `${what} is not valid JSON.`,
      ...(name ? { field: name } : {}),
    });
  }
  const base = name ? [name] : [];
  if (checkJsonValue(value, base) !== shape.keys) {
    const dup = firstDuplicateKey(text);
    if (dup) {
      const at = pointer([...base, ...dup.path]);
      throw bad(
        "DUPLICATE_KEY",
        `${at}: the key ${JSON.stringify(dup.key.slice(0, 100))} appears more than once in its object; send each key once.`,
        at,
      );
    }
  }
  return value;
}
