/**
 * Seeds the view scenarios (graphql-view, rest-view) on top of the pick job seed (pickjob-seed.ts):
 * one more facility with 100 jobs cloned from the same template (addPickJobs: 60 OPEN, targetTimes
 * over 7 days), each with 2 load units through the target's own POST /api/loadunits (loadunit-seed.ts'
 * addLoadUnits). A facility of its own because the other scenarios write into the seed's: create-pickjob
 * and the mixed scenario add OPEN jobs to its search facility (the first page by targetTime would
 * change), create-loadunits adds load units to a random sample of its jobs. So every run's view
 * shows the same 20 jobs with 2 load units each, on both targets. Seeded once per database.
 */
import { addLoadUnits } from "./loadunit-seed.ts";
import { addPickJobs, seedPickJobs } from "./pickjob-seed.ts";
import { type Target, VIEW_UNITS_PER_JOB } from "./requests.ts";
import { oncePerDatabase } from "./seed-db.ts";

export interface ViewSeed {
  /** The facility whose OPEN jobs the view shows. */
  facilityId: string;
}

/** The view facility's jobs (60 of them OPEN: three pages of the view). */
const JOBS = 100;

async function seed(target: Target, pickJobs: number): Promise<ViewSeed> {
  const started = performance.now();
  const { facilityId, jobIds } = await addPickJobs(
    target,
    await seedPickJobs(target, pickJobs),
    "Bench view store",
    JOBS,
  );
  const units = await addLoadUnits(target, jobIds, VIEW_UNITS_PER_JOB);
  console.error(
    `[bench] view: ${jobIds.length} jobs with ${units.length} load units in a facility of their own, ` +
      `seeded into ${target.name} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { facilityId };
}

/** Seeds the view facility into `target` (once per database: both view scenarios read it). */
export const seedView: (target: Target, pickJobs: number) => Promise<ViewSeed> = oncePerDatabase(seed);
