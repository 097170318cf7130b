/**
 * Shared pieces of the fuzz tests: a seeded PRNG, hostile values, body mutation and the check that
 * every answer is a 2xx/4xx with the platform's error body, in time, never a 5xx.
 */
import type { System } from "./system.ts";

/** Seed of this run: FUZZ_SEED replays a failure. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

export interface Fuzz {
  /** A number in [0, 1). */
  r: () => number;
  int: (n: number) => number;
  pick: <T>(xs: readonly T[]) => T;
  /** A hostile JSON value (wrong types, huge, control characters, injections, ...; plus `extra`). */
  weird: () => unknown;
  /** `value` deep-copied with one change: a member replaced by a weird value, removed or added. */
  mutate: <T>(value: T) => T;
}

/** mulberry32: a small deterministic PRNG. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A seeded fuzz. `extra` values join the weird ones; `planted`, when given, makes most weird values
 * (those `mutate` plants) come from it instead (the hostile mode's generator).
 */
export function fuzz(seed: number, extra: readonly unknown[] = [], planted?: (f: Fuzz) => unknown): Fuzz {
  const r = mulberry32(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const weird = (): unknown =>
    planted && r() < 0.7
      ? planted(self)
      : pick([
          null,
          true,
          -1,
          0,
          1e308,
          -0.5,
          "",
          "x".repeat(int(3000)),
          "💥\u0000\u202e",
          "'; drop table category; --",
          "urn:fft:category:tenantCategoryId:",
          [],
          [null, 1, "a"],
          {},
          { $where: "1" },
          { eq: { nested: [1] } },
          Array.from({ length: int(600) }, (_, i) => i),
          "2026-13-45T25:61:00Z",
          ...extra,
        ]);
  const mutate = <T>(value: T): T => {
    const copy = structuredClone(value) as unknown;
    // Every object/array inside, the whole value included.
    const containers: (Record<string, unknown> | unknown[])[] = [];
    const walk = (v: unknown) => {
      if (v && typeof v === "object") {
        containers.push(v as Record<string, unknown>);
        for (const child of Object.values(v)) walk(child);
      }
    };
    walk(copy);
    if (containers.length === 0) return weird() as T;
    const target = pick(containers);
    const keys = Object.keys(target);
    const k = int(3);
    if (k === 0 && keys.length > 0) {
      (target as Record<string, unknown>)[pick(keys)] = weird();
    } else if (k === 1 && keys.length > 0) {
      const key = pick(keys);
      if (Array.isArray(target)) target.splice(Number(key), 1);
      else delete target[key];
    } else if (Array.isArray(target)) {
      target.push(weird());
    } else {
      target[pick(["nope", "__proto__", "constructor", "id", "version", "status"])] = weird();
    }
    return copy as T;
  };
  const self: Fuzz = { r, int, pick, weird, mutate };
  return self;
}

export interface FuzzRequest {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface SendOptions {
  /** Whether a 4xx answer's body is the expected error body (default: the platform's REST error array). */
  isErrorBody?: (body: any) => boolean;
  /** Stops waiting for an answer after this long and counts it as a failure ("timeout"); default: waits. */
  timeoutMs?: number;
}

/** The platform's REST error body: an array of {summary, ...}. */
const isRestErrorBody = (body: any): boolean => Array.isArray(body) && typeof body[0]?.summary === "string";

/**
 * Sends the requests one by one with `token` (unless a request brings its own Authorization) and
 * returns what went wrong (a 5xx, a 4xx without the platform's error body, or an answer slower than
 * 2 s, or one `check` finds fault with) and how many answers had each status class ("2xx", "4xx", ...).
 * `requests` may be a generator: each request is then made after the answer to the one before it
 * (and after `check` saw that answer), so it can build on what the fuzz learnt so far. `opts` can name
 * another error body (e.g. GraphQL's) and a time after which a request counts as hanging.
 */
export async function sendAll(
  sys: System,
  token: string,
  requests: Iterable<FuzzRequest>,
  check?: (res: { status: number; text: string; body: any }, req: FuzzRequest) => string | undefined,
  opts: SendOptions = {},
): Promise<{ failures: string[]; classes: Record<string, number> }> {
  const failures: string[] = [];
  const classes: Record<string, number> = {};
  const isErrorBody = opts.isErrorBody ?? isRestErrorBody;
  for (const req of requests) {
    const started = Date.now();
    const call = sys.api(req.method, req.path, {
      token: req.headers?.authorization ? undefined : token,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : req.body,
      headers: req.headers ?? {},
    });
    let timer: NodeJS.Timeout | undefined;
    if (opts.timeoutMs) call.catch(() => undefined); // an answer given up on may fail later, unheard
    const res = opts.timeoutMs
      ? await Promise.race([
          call,
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), opts.timeoutMs);
          }),
        ])
      : await call;
    clearTimeout(timer);
    if (!res) {
      classes.timeout = (classes.timeout ?? 0) + 1;
      failures.push(
        `${req.method} ${req.path} ${JSON.stringify(req.body)?.slice(0, 300)} -> no answer within ${opts.timeoutMs} ms`,
      );
      continue;
    }
    const ms = Date.now() - started;
    const cls = `${Math.floor(res.status / 100)}xx`;
    classes[cls] = (classes[cls] ?? 0) + 1;
    if (ms > 2000) failures.push(`${req.method} ${req.path} took ${ms} ms`);
    const fault = check?.(res, req);
    if (fault) failures.push(`${req.method} ${req.path} -> ${res.status} ${fault}`);
    if (res.status >= 500)
      failures.push(
        `${req.method} ${req.path} ${JSON.stringify(req.body)?.slice(0, 300)} -> ${res.status} ${res.text.slice(0, 300)}`,
      );
    else if (res.status >= 400 && req.method !== "HEAD" && !isErrorBody(res.body)) {
      failures.push(
        `${req.method} ${req.path} -> ${res.status} without the error body: ${res.text.slice(0, 200)}`,
      );
    }
  }
  return { failures, classes };
}
