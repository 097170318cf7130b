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
 */
import type pg from "pg";
import { facilityAddress } from "../support/fixtures.ts";
import { BASELINE_TENANT } from "./baseline.ts";
import { sendJson, type Target } from "./scenarios.ts";
import { withDatabase } from "./seed-db.ts";

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

/** Clones the template job ($2) into rows $5..$3-1 (series numbers); $4 = the facility ids. */
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
      ($4::text[])[1 + s % ${FACILITIES}] as facility,
      'BENCH-' || s as toid,
      ${iso("statement_timestamp() - s * interval '1 second'")} as created,
      ${iso("timestamptz '2026-01-02T00:00:00Z' + ((s::bigint * 7919) % 10080) * interval '1 minute'")} as target
    from generate_series($5::int, $3::int - 1) s
  ) g
  where t.tenant_id = $1 and t.id = $2::uuid`;

const cache = new Map<string, Promise<PickJobSeed>>();

export function seedPickJobs(target: Target, count: number): Promise<PickJobSeed> {
  const url = target.databaseUrl;
  if (!url) throw new Error(`${target.name}: no databaseUrl to seed pick jobs into`);
  let seeded = cache.get(url);
  if (!seeded) {
    seeded = seed(target, count);
    cache.set(url, seeded);
  }
  return seeded;
}

async function createFacilities(target: Target, db: pg.Client): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < FACILITIES; i++) {
    const name = `Bench store ${i}`;
    if (target.name === "system") {
      ids.push(
        (
          await sendJson<{ id: string }>(
            target,
            "POST",
            "/api/facilities",
            { name, address: facilityAddress },
            201,
          )
        ).id,
      );
    } else {
      const { rows } = await db.query<{ id: string }>(
        `insert into catalog.facility (tenant_id, id, version, created, last_modified, name, type, status, address)
         values ($1, gen_random_uuid(), 1, now(), now(), $2, 'MANAGED_FACILITY', 'ONLINE', $3) returning id`,
        [BASELINE_TENANT, name, facilityAddress],
      );
      ids.push(rows[0]!.id);
    }
  }
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
    if (count > 1) await db.query(CLONE, [BASELINE_TENANT, template.id, count, facilities, 1]);
    await db.query("vacuum analyze picking.pick_job");
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

/**
 * Grows a target seeded by {@link seedPickJobs} to `total` jobs of its tenant, cloned from the same
 * template over the same facilities (the series continues where the table ends), then VACUUM
 * ANALYZE. For `npm run bench -- --scale`.
 */
export async function growPickJobs(target: Target, total: number): Promise<void> {
  const seed = await seedPickJobs(target, 1);
  await withDatabase(target, async (db) => {
    const started = performance.now();
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from picking.pick_job where tenant_id = $1",
      [BASELINE_TENANT],
    );
    const have = rows[0]!.n;
    if (have >= total) return;
    await db.query(CLONE, [BASELINE_TENANT, seed.templateId, total, seed.facilities, have]);
    await db.query("vacuum analyze picking.pick_job");
    console.error(
      `[bench] pick jobs: grew ${target.name} from ${have} to ${total} in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  });
}
