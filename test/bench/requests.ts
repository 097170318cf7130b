/**
 * What the benchmark scenarios (scenarios.ts) and their seeds (*-seed.ts) share: the target a run
 * loads, sending JSON to it, and the request bodies both of them send. Light, like scenarios.ts (the
 * load-generator worker loads it): the seeds import it, never scenarios.ts, which imports them.
 */

import type { RequestContext } from "@fop/kit/context";

/** The request context of the bench's in-process callers (relay-cost.ts' writer, rpc-retention.ts' clients). */
export const BENCH_CONTEXT: RequestContext = {
  tenant: "bench",
  principal: { userId: "u1", username: "bench", roles: [], permissions: [] },
  client: { api: "REST", rawInfo: "bench" },
  traceId: "",
};

export type TargetName = "baseline" | "system";

/** A server to load, with the headers every request to it carries (e.g. the token). */
export interface Target {
  name: TargetName;
  baseUrl: string;
  headers: Record<string, string>;
  /** Admin URL of the target's own database (seeds that are too big for HTTP write there). */
  databaseUrl?: string;
}

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

/** The body of one POST /api/loadunits: 5 load units, each of one job, with one line item. */
export function loadUnitsBody(jobIds: string[], n: number) {
  return {
    loadUnits: Array.from({ length: 5 }, (_, i) => ({
      pickJobRefs: [jobIds[(n * 5 + i) % jobIds.length]],
      codes: [`LU-${n}-${i}`],
      loadUnitLineItems: [{ article: { tenantArticleId: "4711", title: "Cologne Water" }, quantity: 1 }],
    })),
  };
}

/** The body of one POST .../countryservicemappings. */
export const mappingBody = (version: number, n: number) => ({
  carrierConfigurationVersion: version,
  source: { countryCode: "DE" },
  destinations: [{ countryCode: "DE" }, { countryCode: "AT", postalCodes: [String(1000 + (n % 9000))] }],
  carrierProductCategory: "STANDARD",
  transitTime: { minTransitDays: 1, maxTransitDays: 3 },
  countAsTransitDayBefore: "12:00",
  deliveryCosts: [{ cost: 4.99, currency: "EUR" }],
});

/** Load units each job of the view facility has (view-seed.ts). */
export const VIEW_UNITS_PER_JOB = 2;
