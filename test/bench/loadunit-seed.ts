/**
 * Seeds the load unit scenarios on top of the pick job seed (pickjob-seed.ts): 1,000 of its jobs
 * put into the loadunits projection by SQL (where, in the system, picking's events would have put
 * them; the SQL-cloned jobs never had events), then 1,000 load units through the target's own
 * POST /api/loadunits, which GET by id rotates through. Both targets get the same.
 * {@link addLoadUnits} does the same for other jobs (the view scenarios', view-seed.ts).
 */
import { BASELINE_TENANT } from "./baseline.ts";
import { seedPickJobs } from "./pickjob-seed.ts";
import { inParallel, loadUnitsBody, sendJson, type Target } from "./requests.ts";
import { withDatabase } from "./seed-db.ts";

export interface LoadUnitSeed {
  /** Pick jobs the projection knows. */
  jobIds: string[];
  /** Seeded load units. */
  unitIds: string[];
}

const JOBS = 1000;

/**
 * Puts `jobIds` (seeded pick jobs) into the loadunits projection, then gives each `perJob` load
 * units of its own through the target's POST /api/loadunits (5 per request: `jobIds.length *
 * perJob` must be a multiple of 5); returns the load units' ids.
 */
export async function addLoadUnits(target: Target, jobIds: string[], perJob: number): Promise<string[]> {
  const requests = (jobIds.length * perJob) / 5;
  if (!Number.isInteger(requests))
    throw new Error(`${jobIds.length} jobs x ${perJob} load units: not 5 per request`);
  await withDatabase(target, (db) =>
    db.query(
      `insert into loadunits.pick_job_ref (tenant_id, id, facility_ref, status, version)
       select tenant_id, id, facility_ref, status, version from picking.pick_job
       where tenant_id = $1 and id = any($2::uuid[]) on conflict do nothing`,
      [BASELINE_TENANT, jobIds],
    ),
  );
  const created = await inParallel(requests, 10, (n) =>
    sendJson<{ id: string }[]>(target, "POST", "/api/loadunits", loadUnitsBody(jobIds, n), 201),
  );
  return created.flat().map((u) => u.id);
}

export async function seedLoadUnits(target: Target, pickJobs: number): Promise<LoadUnitSeed> {
  const jobs = await seedPickJobs(target, pickJobs);
  const jobIds = jobs.ids.slice(0, JOBS);
  return { jobIds, unitIds: await addLoadUnits(target, jobIds, 1) };
}
