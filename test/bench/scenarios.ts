/**
 * Benchmark scenarios. Each names the REST call it measures, how to build autocannon's request
 * sequence for the system and for the baseline, and optionally what to seed first. To add one,
 * write a {@link Scenario} and append it to {@link scenarios}.
 *
 * This module is loaded by the load-generator worker too (request builders are functions, which
 * cannot be sent to a worker, so the worker imports them by scenario name): keep its imports light
 * and type-only, and make seeds structured-cloneable (plain data).
 */
import type autocannon from "autocannon";

export type TargetName = "baseline" | "system";

/** A server to load, with the headers every request to it carries (e.g. the token). */
export interface Target {
  name: TargetName;
  baseUrl: string;
  headers: Record<string, string>;
}

export interface SeedOptions {
  /** How many entities a seed creates (BENCH_SEED). */
  size: number;
}

export interface BuildContext<S> {
  /** What {@link Scenario.seed} returned for this target. */
  seed: S;
  /** Unique per measured run: use it to keep unique keys unique across runs. */
  runId: string;
}

/**
 * Builds the request sequence of one run (called once per run, in the load generator's thread;
 * closures may keep counters). Target headers are added by the runner.
 */
export type RequestBuilder<S> = (ctx: BuildContext<S>) => autocannon.Request[];

export interface Scenario<S = undefined> {
  name: string;
  description: string;
  /** Runs once per target before warm-up, over HTTP; the result is passed to the builders. */
  seed?: (target: Target, opts: SeedOptions) => Promise<S>;
  system: RequestBuilder<S>;
  baseline: RequestBuilder<S>;
}

/** A scenario of any seed type (the list mixes them). */
export type AnyScenario = Scenario<any>;

/** Sends one JSON request to `target` and returns the parsed body; fails unless `expect`ed. */
export async function sendJson<T>(
  target: Target,
  method: string,
  path: string,
  body: unknown,
  expect: number,
): Promise<T> {
  const res = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: { ...target.headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect)
    throw new Error(`${target.name}: ${method} ${path} answered ${res.status}, expected ${expect}: ${text}`);
  return JSON.parse(text) as T;
}

/** Runs `fn(0..count-1)` with at most `concurrency` in flight; returns the results in order. */
export async function inParallel<T>(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<T>,
): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return out;
}

const categoryBody = (tenantCategoryId: string, n: number) => ({
  tenantCategoryId,
  nameLocalized: { en_US: `Bench category ${n}`, de_DE: `Benchmark-Kategorie ${n}` },
  customAttributes: { bench: true, n },
});

/** Categories seeded through the target's own POST /api/categories; returns their ids. */
async function seedCategories(target: Target, opts: SeedOptions): Promise<{ ids: string[] }> {
  const created = await inParallel(opts.size, 10, (i) =>
    sendJson<{ id: string }>(target, "POST", "/api/categories", categoryBody(`SEED-${i}`, i), 201),
  );
  return { ids: created.map((c) => c.id) };
}

/** GET /api/categories/{id}, cycling through the seeded ids. */
const getCategoryById: RequestBuilder<{ ids: string[] }> = ({ seed }) => {
  let i = 0;
  return [
    {
      method: "GET",
      setupRequest: (req) => ({ ...req, path: `/api/categories/${seed.ids[i++ % seed.ids.length]}` }),
    },
  ];
};

/** POST /api/categories with a tenantCategoryId unique per request. */
const createCategory: RequestBuilder<undefined> = ({ runId }) => {
  let n = 0;
  return [
    {
      method: "POST",
      path: "/api/categories",
      headers: { "content-type": "application/json" },
      setupRequest: (req) => {
        n++;
        return { ...req, body: JSON.stringify(categoryBody(`B-${runId}-${n}`, n)) };
      },
    },
  ];
};

export const scenarios: AnyScenario[] = [
  {
    name: "get-category",
    description: "GET /api/categories/{id}, rotating through the seeded categories",
    seed: seedCategories,
    system: getCategoryById,
    baseline: getCategoryById,
  } satisfies Scenario<{ ids: string[] }>,
  {
    name: "create-category",
    description: "POST /api/categories, a unique tenantCategoryId per request",
    system: createCategory,
    baseline: createCategory,
  } satisfies Scenario,
];

export function findScenario(name: string): AnyScenario {
  const s = scenarios.find((x) => x.name === name);
  if (!s) throw new Error(`unknown scenario ${name} (known: ${scenarios.map((x) => x.name).join(", ")})`);
  return s;
}
