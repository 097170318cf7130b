/**
 * Shared pieces of the fuzz tests, on fast-check: arbitraries for hostile values and body mutations,
 * and a property that sends one generated request per run and holds that every answer is a 2xx/4xx
 * with the platform's error body, in time, never a 5xx.
 *
 * A fuzz test writes its requests against `Fuzz` (r/int/pick/weird/mutate). Each property run binds
 * those to that run's `fc.gen()`, so every choice is a fast-check draw: seeded (FUZZ_SEED is passed
 * as fast-check's `seed`), and shrunk when a run fails. fast-check then reports the seed, the path
 * and the minimal counterexample; the error it shows names the failing request.
 */
import fc from "fast-check";
import type { System } from "./system.ts";

/**
 * Seed of this run: FUZZ_SEED replays a failure, the whole run (a request may depend on what earlier
 * answers showed, so fast-check's `path`, which starts at the failing run, cannot replay it alone).
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);

/** The hostile JSON values every fuzz plants: wrong types, huge, control characters, injections, ... */
const FIXED_WEIRD: readonly unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  -0.5,
  "",
  "💥\u0000\u202e",
  "'; drop table category; --",
  "urn:fft:category:tenantCategoryId:",
  [],
  [null, 1, "a"],
  {},
  { $where: "1" },
  { eq: { nested: [1] } },
  "2026-13-45T25:61:00Z",
];

/** A hostile JSON value; `extra` values (a test's real ids, its own edge cases) join them. */
export function weirdValue(extra: readonly unknown[] = []): fc.Arbitrary<unknown> {
  // Weights keep the old uniform pick: one share per fixed or extra value, one per sized value.
  const fixed = [...FIXED_WEIRD, ...extra];
  return fc.noBias(
    fc.oneof(
      { arbitrary: fc.constantFrom(...fixed), weight: fixed.length },
      { arbitrary: fc.nat({ max: 2999 }).map((n) => "x".repeat(n)), weight: 1 },
      { arbitrary: fc.nat({ max: 599 }).map((n) => Array.from({ length: n }, (_, i) => i)), weight: 1 },
    ),
  );
}

// Unbiased, as every draw here: fast-check's bias (toward 0 and small sizes) would shift the odds a
// test's `r() < p` and `int(n)` were written with, and its mix of requests; shrinking still applies.
/** A number in [0, 1), uniform in value (fc.double is uniform over the doubles, most of them tiny). */
const unit = () => fc.noBias(fc.nat({ max: 0x7fffffff }).map((n) => n / 0x80000000));
/** An integer in [0, n). */
const below = (n: number) => fc.noBias(fc.nat({ max: n - 1 }));

/** Keys a mutation adds to an object: unknown, prototype-polluting, and ones clients never set. */
const ADDED_KEYS = ["nope", "__proto__", "constructor", "id", "version", "status"] as const;

/** Every object/array inside `value`, the whole value included, in a fixed order. */
function containersOf(value: unknown): (Record<string, unknown> | unknown[])[] {
  const out: (Record<string, unknown> | unknown[])[] = [];
  const walk = (v: unknown) => {
    if (v && typeof v === "object") {
      out.push(v as Record<string, unknown>);
      for (const child of Object.values(v)) walk(child);
    }
  };
  walk(value);
  return out;
}

/** Where a mutation strikes: which container, what it does there, which key, which added key. */
export interface MutationPlan {
  target: number;
  kind: "replace" | "remove" | "add";
  key: number;
  added: (typeof ADDED_KEYS)[number];
}

/** A mutation of a value with `containers` objects/arrays inside (see `containersOf`). */
export const mutationPlan = (containers: number): fc.Arbitrary<MutationPlan> =>
  fc.noBias(
    fc.record({
      target: fc.nat({ max: containers - 1 }),
      kind: fc.constantFrom("replace", "remove", "add"),
      key: fc.nat(),
      added: fc.constantFrom(...ADDED_KEYS),
    }),
  );

/**
 * `value` deep-copied with one change: a member replaced by `weird`, removed, or added (an array
 * grows by one, an object gains one of ADDED_KEYS).
 */
function applyMutation<T>(value: T, plan: MutationPlan, weird: unknown): T {
  const copy = structuredClone(value) as unknown;
  const target = containersOf(copy)[plan.target]!;
  const keys = Object.keys(target);
  const chosen = keys.length > 0 ? keys[plan.key % keys.length] : undefined;
  if (plan.kind === "replace" && chosen !== undefined) {
    (target as Record<string, unknown>)[chosen] = weird;
  } else if (plan.kind === "remove" && chosen !== undefined) {
    if (Array.isArray(target)) target.splice(Number(chosen), 1);
    else delete target[chosen];
  } else if (Array.isArray(target)) {
    target.push(weird);
  } else {
    target[plan.added] = weird;
  }
  return copy as T;
}

export interface Fuzz {
  /** A number in [0, 1). */
  r: () => number;
  /** An integer in [0, n). */
  int: (n: number) => number;
  pick: <T>(xs: readonly T[]) => T;
  /** A hostile JSON value (`weirdValue`, plus `extra`; or the planted generator's). */
  weird: () => unknown;
  /** `value` deep-copied with one change: a member replaced by a weird value, removed or added. */
  mutate: <T>(value: T) => T;
}

/** A `Fuzz` whose draws come from the property run it is bound to (`fuzzProperty` binds it). */
export interface BoundFuzz extends Fuzz {
  /** fast-check's seed for the properties this fuzz runs (FUZZ_SEED unless a test runs several). */
  seed: number;
  bind: (g: fc.GeneratorValue) => void;
}

export interface FuzzOptions {
  /** Makes most weird values (those `mutate` plants) come from it instead (the hostile mode's generator). */
  planted?: (f: Fuzz) => unknown;
  /** Default: FUZZ_SEED. */
  seed?: number;
}

/**
 * A fuzz drawing from fast-check (`weirdValue`, `mutationPlan`); `extra` values join the weird ones.
 * Its functions draw from the run it is bound to: outside a run they throw.
 */
export function fuzz(
  extra: readonly unknown[] = [],
  { planted, seed = FUZZ_SEED }: FuzzOptions = {},
): BoundFuzz {
  let gen: fc.GeneratorValue | undefined;
  const g = (): fc.GeneratorValue => {
    if (!gen) throw new Error("fuzz: draw outside a property run");
    return gen;
  };
  // fc.gen shrinks a draw only when it comes from the same arbitrary again: stable builders.
  const base = weirdValue(extra);
  const weirdBuilder = () => base;
  const r = () => g()(unit);
  const int = (n: number) => (n <= 1 ? 0 : g()(below, n));
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const weird = (): unknown => (planted && r() < 0.7 ? planted(self) : g()(weirdBuilder));
  const mutate = <T>(value: T): T => {
    const containers = containersOf(value).length;
    if (containers === 0) return weird() as T;
    return applyMutation(value, g()(mutationPlan, containers), weird());
  };
  const self: BoundFuzz = {
    r,
    int,
    pick,
    weird,
    mutate,
    seed,
    bind: (next) => {
      gen = next;
    },
  };
  return self;
}

/**
 * Runs `body` as a fast-check property `numRuns` times, each run with `f` bound to its draws, and
 * fails with fast-check's report (seed, path, shrunk counterexample, the error `body` threw).
 */
export async function fuzzProperty(
  f: BoundFuzz,
  numRuns: number,
  body: () => Promise<void>,
  seed: number = f.seed,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.gen(), async (g) => {
      f.bind(g);
      await body();
    }),
    { seed, numRuns },
  );
}

export interface FuzzRequest {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface SendOptions {
  /** fast-check's seed, when not the fuzz's own (`fuzzRequests` only). */
  seed?: number;
  /** Whether a 4xx answer's body is the expected error body (default: the platform's REST error array). */
  isErrorBody?: (body: any) => boolean;
  /** Stops waiting for an answer after this long and counts it as a failure ("timeout"); default: waits. */
  timeoutMs?: number;
}

/** The platform's REST error body: an array of {summary, ...}. */
const isRestErrorBody = (body: any): boolean => Array.isArray(body) && typeof body[0]?.summary === "string";

export type Check = (
  res: { status: number; text: string; body: any },
  req: FuzzRequest,
) => string | undefined;

/** The request as a failure names it: method, path, headers and body (bounded). */
export const describeRequest = (req: FuzzRequest): string =>
  `${req.method} ${req.path}${req.headers && Object.keys(req.headers).length ? ` headers ${JSON.stringify(req.headers).slice(0, 300)}` : ""} body ${JSON.stringify(req.body)?.slice(0, 500)}`;

/**
 * Sends `req` with `token` (unless it brings its own Authorization), counts its status class in
 * `classes` ("2xx", "4xx", ..., "timeout") and returns what is wrong with the answer: a 5xx, a 4xx
 * without the platform's error body, an answer slower than 2 s, or what `check` finds fault with.
 */
export async function sendOne(
  sys: System,
  token: string,
  req: FuzzRequest,
  classes: Record<string, number>,
  check?: Check,
  opts: SendOptions = {},
): Promise<string[]> {
  const failures: string[] = [];
  const isErrorBody = opts.isErrorBody ?? isRestErrorBody;
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
    return [`no answer within ${opts.timeoutMs} ms`];
  }
  const ms = Date.now() - started;
  const cls = `${Math.floor(res.status / 100)}xx`;
  classes[cls] = (classes[cls] ?? 0) + 1;
  if (ms > 2000) failures.push(`took ${ms} ms`);
  const fault = check?.(res, req);
  if (fault) failures.push(`${res.status} ${fault}`);
  if (res.status >= 500) failures.push(`${res.status} ${res.text.slice(0, 300)}`);
  else if (res.status >= 400 && req.method !== "HEAD" && !isErrorBody(res.body)) {
    failures.push(`${res.status} without the error body: ${res.text.slice(0, 200)}`);
  }
  return failures;
}

/**
 * The fuzz property most tests are: `numRuns` runs, each sending the request `request` builds from
 * `f`'s draws (one at a time, so a request may build on what the answers before it showed) and
 * failing on what `sendOne` finds. Returns how many answers had each status class.
 */
export async function fuzzRequests(
  sys: System,
  token: string,
  f: BoundFuzz,
  numRuns: number,
  request: () => FuzzRequest,
  check?: Check,
  opts: SendOptions = {},
): Promise<Record<string, number>> {
  const classes: Record<string, number> = {};
  await fuzzProperty(
    f,
    numRuns,
    async () => {
      const req = request();
      const failures = await sendOne(sys, token, req, classes, check, opts);
      if (failures.length > 0) throw new Error(`${describeRequest(req)} -> ${failures.join("; ")}`);
    },
    opts.seed,
  );
  return classes;
}
