/**
 * Seeds BENCH_PICKJOBS (default 100,000) pick jobs per target for the pick job scenarios. Through
 * the API that would take many minutes on this machine, so:
 *
 * 1. 10 facilities: through the system's POST /api/facilities (the catalog writes them); the
 *    baseline, which has no such route, gets the same rows by SQL.
 * 2. ONE job through the target's own POST /api/pickjobs, so its document and derived columns are
 *    exactly what that target writes.
 * 3. The rest cloned from it in one INSERT ... SELECT over generate_series, each with its own id,
 *    shortId, status (60 % OPEN, 20 % IN_PROGRESS, 20 % CLOSED), facility (round robin over the 10),
 *    targetTime (minutes over 7 days), tenantOrderId and created/lastModified, in the document and
 *    in the derived columns alike (jsonb_populate_record over the template row, so every other
 *    column is the template's).
 * 4. VACUUM ANALYZE (fresh statistics, and no autovacuum of the new rows during the measurement).
 *
 * Both targets get the same data. Seeded once per database: the pick job scenarios share it.
 * {@link addPickJobs} clones more jobs from the same template into other facilities (the view
 * scenarios' own, view-seed.ts); {@link growPickJobs} grows the table for `--scale`.
 */
import type pg from "pg";
import { facilityAddress } from "../support/fixtures.ts";
import { BASELINE_TENANT } from "./baseline.ts";
import { sendJson, type Target } from "./requests.ts";
import { oncePerDatabase, withDatabase } from "./seed-db.ts";

export interface PickJobSeed {
  /** The facility the scenarios search and create in (one of the 10). */
  facilityId: string;
  /** A random sample of the seeded jobs' ids (GET by id rotates through it). */
  ids: string[];
  /** Every facility the jobs are spread over, and the job the others were cloned from. */
  facilities: string[];
  templateId: string;
}

const FACILITIES = 10;
/** How many ids GET by id rotates through (spread over the table, not a hot few pages). */
const SAMPLE = 10_000;

/** The template job: a two-line shipping order as a shop's order system sends it. */
export function pickJobBody(facilityId: string) {
  return {
    facilityRef: facilityId,
    orderDate: "2026-01-01T10:00:00.000Z",
    tenantOrderId: "BENCH-0",
    preferredPickingMethods: ["SINGLE_ORDER"],
    deliveryinformation: {
      channel: "SHIPPING",
      targetTime: "2026-01-02T00:00:00.000Z",
      details: {
        shipping: {
          carrierKey: "DPD",
          recipientaddress: { firstName: "Maxine", lastName: "Muller", ...facilityAddress },
        },
      },
    },
    pickLineItems: [
      {
        article: { tenantArticleId: "4711", title: "Cologne Water" },
        quantity: 2,
        scannableCodes: ["4006381333931"],
      },
      { article: { tenantArticleId: "0815", title: "Soap" }, quantity: 1 },
    ],
  };
}

const iso = (expr: string) => `to_char((${expr}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Clones the template job ($2) into rows $5..$3-1 (series numbers), round robin over the facility ids $4. */
const CLONE = `
  insert into picking.pick_job
  select (jsonb_populate_record(t, jsonb_build_object(
    'id', g.id, 'short_id', g.short_id, 'status', g.status, 'facility_ref', g.facility,
    'tenant_order_id', g.toid, 'target_time', g.target, 'created', g.created, 'last_modified', g.created,
    'search_text', lower(g.toid || ' ' || g.short_id)
      || substr(t.search_text, length(t.tenant_order_id || ' ' || t.short_id) + 1),
    'doc', t.doc || jsonb_build_object(
      'id', g.id, 'shortId', g.short_id, 'status', g.status, 'facilityRef', g.facility,
      'tenantOrderId', g.toid, 'created', g.created, 'lastModified', g.created,
      'documentsRef', replace(t.doc ->> 'documentsRef', t.id::text, g.id::text),
      'deliveryinformation', (t.doc -> 'deliveryinformation') || jsonb_build_object('targetTime', g.target),
      'usersModificationHistory', jsonb_build_array(
        (t.doc #> '{usersModificationHistory,0}') || jsonb_build_object('modificationDate', g.created)))
  ))).*
  from picking.pick_job t
  cross join lateral (
    select gen_random_uuid() as id,
      'B' || s as short_id,
      (array['OPEN', 'OPEN', 'OPEN', 'IN_PROGRESS', 'CLOSED'])[1 + (s / ${FACILITIES}) % 5] as status,
      ($4::text[])[1 + s % cardinality($4::text[])] as facility,
      'BENCH-' || s as toid,
      ${iso("statement_timestamp() - s * interval '1 second'")} as created,
      ${iso("timestamptz '2026-01-02T00:00:00Z' + ((s::bigint * 7919) % 10080) * interval '1 minute'")} as target
    from generate_series($5::int, $3::int - 1) s
  ) g
  where t.tenant_id = $1 and t.id = $2::uuid`;

/**
 * Clones `templateId` into series numbers `from`..`to`-1 over `facilities` (none if `to` <= `from`),
 * then VACUUM ANALYZE.
 */
async function cloneTemplate(
  db: pg.Client,
  templateId: string,
  facilities: string[],
  from: number,
  to: number,
): Promise<void> {
  if (to > from) await db.query(CLONE, [BASELINE_TENANT, templateId, to, facilities, from]);
  await db.query("vacuum analyze picking.pick_job");
}

/** Seeds `count` jobs into `target` (once per database; later calls get the first seed). */
export const seedPickJobs: (target: Target, count: number) => Promise<PickJobSeed> = oncePerDatabase(seed);

/** A facility: through the system's POST /api/facilities; the baseline (no such route) by SQL. */
async function createFacility(target: Target, db: pg.Client, name: string): Promise<string> {
  if (target.name === "system") {
    return (
      await sendJson<{ id: string }>(
        target,
        "POST",
        "/api/facilities",
        { name, address: facilityAddress },
        201,
      )
    ).id;
  }
  const { rows } = await db.query<{ id: string }>(
    `insert into catalog.facility (tenant_id, id, version, created, last_modified, name, type, status, address)
     values ($1, gen_random_uuid(), 1, now(), now(), $2, 'MANAGED_FACILITY', 'ONLINE', $3) returning id`,
    [BASELINE_TENANT, name, facilityAddress],
  );
  return rows[0]!.id;
}

async function createFacilities(target: Target, db: pg.Client): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < FACILITIES; i++) ids.push(await createFacility(target, db, `Bench store ${i}`));
  return ids;
}

async function seed(target: Target, count: number): Promise<PickJobSeed> {
  const started = performance.now();
  return withDatabase(target, async (db) => {
    const facilities = await createFacilities(target, db);
    const template = await sendJson<{ id: string }>(
      target,
      "POST",
      "/api/pickjobs",
      pickJobBody(facilities[0]!),
      201,
    );
    await cloneTemplate(db, template.id, facilities, 1, count);
    const { rows } = await db.query<{ id: string }>(
      "select id from picking.pick_job where tenant_id = $1 order by random() limit $2",
      [BASELINE_TENANT, SAMPLE],
    );
    const { rows: stats } = await db.query<{ n: string; mb: string }>(
      "select count(*) as n, pg_total_relation_size('picking.pick_job') / 1048576 as mb from picking.pick_job",
    );
    console.error(
      `[bench] pick jobs: seeded ${stats[0]!.n} into ${target.name} in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s (table + indexes ${stats[0]!.mb} MB)`,
    );
    // Not facility 0: that one also holds the template.
    return { facilityId: facilities[3]!, ids: rows.map((r) => r.id), facilities, templateId: template.id };
  });
}

/** How many jobs the bench tenant has (the clone series continues there). */
async function countPickJobs(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "select count(*)::int as n from picking.pick_job where tenant_id = $1",
    [BASELINE_TENANT],
  );
  return rows[0]!.n;
}

/**
 * Grows a target seeded by {@link seedPickJobs} to `total` jobs of its tenant, cloned from the same
 * template over the same facilities (the series continues where the table ends), then VACUUM
 * ANALYZE. For `npm run bench -- --scale`.
 */
export async function growPickJobs(target: Target, total: number): Promise<void> {
  const seed = await seedPickJobs(target, 1);
  await withDatabase(target, async (db) => {
    const started = performance.now();
    const have = await countPickJobs(db);
    if (have >= total) return;
    await cloneTemplate(db, seed.templateId, seed.facilities, have, total);
    console.error(
      `[bench] pick jobs: grew ${target.name} from ${have} to ${total} in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
}

/**
 * A new facility named `name` (as {@link seedPickJobs} makes its 10) with `count` jobs cloned from
 * the template of `seed` (the target's seed) as {@link seedPickJobs} clones them: the same status mix
 * (60 % OPEN in blocks of 10), targetTimes over 7 days, the series continuing where the table ends.
 * Returns the facility and its jobs' ids.
 */
export function addPickJobs(
  target: Target,
  seed: PickJobSeed,
  name: string,
  count: number,
): Promise<{ facilityId: string; jobIds: string[] }> {
  return withDatabase(target, async (db) => {
    const facilityId = await createFacility(target, db, name);
    const have = await countPickJobs(db);
    await cloneTemplate(db, seed.templateId, [facilityId], have, have + count);
    const { rows } = await db.query<{ id: string }>(
      "select id from picking.pick_job where tenant_id = $1 and facility_ref = $2 order by id",
      [BASELINE_TENANT, facilityId],
    );
    return { facilityId, jobIds: rows.map((r) => r.id) };
  });
}
