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
 */
import { AppError, invalid } from "@fop/kit/errors";
import type { FastifyInstance } from "fastify";

export const JSON_LIMITS = {
  /** Objects/arrays nested in each other (the body itself is level 1). */
  maxDepth: 32,
} as const;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const bad = (code: string, description: string, field?: string) => invalid(code, description, field);

/**
 * The deepest nesting of `bytes` (JSON text) if it is at most `max`, else `max + 1` (the scan stops
 * there). Brackets inside strings do not count.
 */
export function nestingDepth(bytes: Uint8Array, max: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return deepest;
}

const pointer = (path: (string | number)[]) =>
  `/${path.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

function checkString(s: string, where: () => string): void {
  if (s.includes("\u0000"))
    throw bad("INVALID_CHARACTER", `${where()}: strings must not contain NUL (\\u0000) characters.`);
  if (!s.isWellFormed())
    throw bad(
      "INVALID_CHARACTER",
      `${where()}: strings must be valid Unicode (a lone surrogate such as \\ud800 is not).`,
    );
}

/**
 * Throws a 400 for the first value in `root` that no part of the system may receive (see the module
 * comment). Iterative, and `root` is already depth-bounded, so it cannot overflow the stack.
 */
export function checkJsonValue(root: unknown): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === "string") {
      checkString(value, () => pointer(path));
    } else if (typeof value === "number") {
      if (!Number.isFinite(value))
        throw bad("INVALID_NUMBER", `${pointer(path)}: the number is out of range.`, pointer(path));
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        throw bad(
          "INVALID_NUMBER",
          `${pointer(path)}: whole numbers must be between -9007199254740991 and 9007199254740991 (beyond, they cannot be kept exactly).`,
          pointer(path),
        );
      }
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ value: value[i], path: [...path, i] });
    } else if (value !== null && typeof value === "object") {
      for (const key of Object.keys(value)) {
        const at = () => pointer([...path, key]);
        checkString(key, at);
        if (key === "__proto__")
          throw bad("INVALID_KEY", `${at()}: "__proto__" is not allowed as a property name.`, at());
        stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
}

/** Parses and checks a JSON body (bytes as received). */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw bad("INVALID_ENCODING", "The body is not valid UTF-8.");
  }
  if (nestingDepth(bytes, JSON_LIMITS.maxDepth) > JSON_LIMITS.maxDepth) {
    throw bad(
      "NESTING_TOO_DEEP",
      `Objects and arrays may be nested at most ${JSON_LIMITS.maxDepth} levels deep.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid", {
      code: "MALFORMED_JSON",
      summary: "Invalid input.",
      description: "The body is not valid JSON.",
    });
  }
  checkJsonValue(value);
  return value;
}

export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBody(bytes));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // Any other media type: no body is fine (empty means none), a body is not something we take.
  app.removeContentTypeParser(["text/plain"]);
  app.addContentTypeParser("*", { parseAs: "buffer" }, (req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(
      new AppError("unsupported_media_type", {
        code: "UNSUPPORTED_MEDIA_TYPE",
        description: `Bodies must be JSON (Content-Type: application/json), not ${JSON.stringify(
          String(req.headers["content-type"] ?? "").slice(0, 100),
        )}.`,
      }),
      undefined,
    );
  });
}
