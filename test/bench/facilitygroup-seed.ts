/**
 * Seeds the facility group scenarios in SQL (both targets the same, through their databases): 200
 * groups of 50 facilities each that GET rotates through (over 1,000 facilities, each in 10 of
 * them), and 1,000 empty groups that the versionless adds fill from 20,000 further facilities.
 * Facilities and groups are built by the service's own functions (createFacility,
 * createFacilityGroup), rows written by its own inserts (insertFacility, insertFacilityGroup: the
 * derived facility_count, sort_name and name_values included).
 *
 * Which facilities a write group takes: the k-th facility added to write group g is
 * `writeFacilities[(g * stride + k) % writeFacilities.length]` (scenarios.ts, groupFacility), distinct
 * within a group for k < 20,000, and each facility is among the first `stride` (200) of at most
 * 1,000 x 200 / 20,000 = 10 groups: far from the 1,000 facilities per group and 20 groups per
 * facility the service allows, so no add is refused.
 */
import {
  createFacility,
  createFacilityGroup,
  DEFAULT_GROUP_LIMITS,
  insertFacility,
  insertFacilityGroup,
} from "@fop/catalog";
import { newId } from "@fop/kit/ids";
import { facilityAddress } from "../support/fixtures.ts";
import { BASELINE_TENANT } from "./baseline.ts";
import { unnamed } from "./baseline-sql.ts";
import type { Target } from "./requests.ts";
import { withDatabase } from "./seed-db.ts";

export interface FacilityGroupSeed {
  /** Groups of 50 facilities, for GET by id. */
  readIds: string[];
  /** Empty groups for the adds. */
  writeIds: string[];
  /** The facilities the adds name (scenarios.ts, groupFacility). */
  writeFacilities: string[];
  /** Facilities set aside per write group before the next group's start (200). */
  stride: number;
}

const READ = 200;
const PER_READ_GROUP = 50;
const READ_FACILITIES = 1000;
const WRITE = 1000;
const STRIDE = 200;
const WRITE_FACILITIES = 20_000;
/** The catalog's default (DEFAULT_LOCALE): the locale names sort by. */
const LOCALE = "en_US";

export async function seedFacilityGroups(target: Target): Promise<FacilityGroupSeed> {
  const now = new Date();
  // Each scenario seeds its own facilities and groups (tenantFacilityIds and tenantFacilityGroupIds
  // stay unique in the tenant).
  const batch = newId().slice(-8);
  const facilities = Array.from({ length: READ_FACILITIES + WRITE_FACILITIES }, (_, i) =>
    createFacility(
      {
        tenantFacilityId: `BENCH-${batch}-${i}`,
        name: `Bench store ${i}`,
        locationType: "STORE",
        address: facilityAddress,
        customAttributes: null,
        details: {},
      },
      newId(),
      now,
    ),
  );
  const readFacilities = facilities.slice(0, READ_FACILITIES).map((f) => f.id);
  const group = (i: number, facilityRefs: string[]) =>
    createFacilityGroup(
      {
        tenantFacilityGroupId: `BENCH-${batch}-${i}`,
        nameLocalized: { en_US: `Bench region ${i}`, de_DE: `Benchmark-Region ${i}` },
        facilityRefs,
        customAttributes: null,
      },
      newId(),
      now,
      DEFAULT_GROUP_LIMITS,
    );
  const groups = Array.from({ length: READ + WRITE }, (_, i) =>
    group(
      i,
      i < READ
        ? Array.from(
            { length: PER_READ_GROUP },
            (_, k) => readFacilities[(i * PER_READ_GROUP + k) % READ_FACILITIES]!,
          )
        : [],
    ),
  );
  await withDatabase(target, async (db) => {
    await db.query("begin");
    for (const f of facilities) await insertFacility(unnamed(db), BASELINE_TENANT, f);
    for (const g of groups) await insertFacilityGroup(unnamed(db), BASELINE_TENANT, g, LOCALE);
    await db.query("commit");
    await db.query("vacuum analyze catalog.facility");
    await db.query("vacuum analyze catalog.facility_group");
  });
  return {
    readIds: groups.slice(0, READ).map((g) => g.id),
    writeIds: groups.slice(READ).map((g) => g.id),
    writeFacilities: facilities.slice(READ_FACILITIES).map((f) => f.id),
    stride: STRIDE,
  };
}
