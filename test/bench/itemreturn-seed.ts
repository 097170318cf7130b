/**
 * Seeds the item return scenarios in SQL (both targets the same, through their databases): 200 jobs
 * that GET rotates through and 2,000 that the line item PATCHes spread over. Each job has 5
 * returnable line items (2 delivered each) and 1 not returnable, and 2 item returns that each return
 * the 5 (10 returned line items, OPEN, with a reason). Documents are built by the service's own
 * functions (createJob, addItemReturn), rows written by its own insert (derived columns included).
 */
import { newId, newShortId } from "@fop/kit/ids";
import { addItemReturn, createJob, type ItemReturn, type ItemReturnJob, insertJob } from "@fop/returns";
import { BASELINE_TENANT } from "./baseline.ts";
import { unnamed } from "./baseline-sql.ts";
import type { Target } from "./requests.ts";
import { withDatabase } from "./seed-db.ts";

export interface ItemReturnSeed {
  /** Jobs for GET by id. */
  readIds: string[];
  /** Jobs for the PATCHes, each with its returned line items' paths below the job. */
  writeJobs: { id: string; lines: string[] }[];
}

const READ = 200;
const WRITE = 2000;
const ITEM_RETURNS = 2;

const ARTICLES = [
  ["4711", "Cologne Water 100 ml"],
  ["0815", "Olive Soap"],
  ["1337", "Linen Shirt, blue, L"],
  ["2342", "Chino Trousers, beige, 32/32"],
  ["9001", "Wool Socks, 3 pairs"],
];

/** What a shop's order system sends: POST /api/itemreturnjobs. */
const jobBody = (batch: string, i: number, facility: string) => ({
  status: "OPEN",
  originFacilityRefs: [facility],
  tenantOrderId: `BENCH-${batch}-${i}`,
  scannableCodes: [`RET-${batch}-${i}`],
  consumerAddresses: [
    {
      firstName: "Ada",
      lastName: `Lovelace ${i}`,
      street: "Hauptstr.",
      houseNumber: "1",
      postalCode: "40764",
      city: "Langenfeld",
      country: "DE",
      email: `ada.${i}@example.com`,
    },
  ],
  returnableLineItems: ARTICLES.map(([tenantArticleId, title]) => ({
    article: { tenantArticleId, title },
    delivered: 2,
    scannableCodes: [`EAN-${tenantArticleId}`],
  })),
  notReturnableLineItems: [{ article: { tenantArticleId: "7777", title: "Gift card" }, delivered: 1 }],
});

/** What the returns desk sends: POST .../itemreturns returning every returnable line once. */
const itemReturnBody = (job: ItemReturnJob, facility: string, n: number) => ({
  itemReturnJobVersion: job.version,
  itemReturnForCreation: {
    status: "OPEN",
    returnFacilityRef: facility,
    scannableCodes: [`PARCEL-${job.tenantOrderId}-${n}`],
    returnedLineItems: job.returnableLineItems.map((l) => ({
      itemReturnJobLineItemRef: l.id,
      status: "OPEN",
      itemConditionLocalized: { en_US: "As new", de_DE: "Wie neu" },
      reasons: [{ reasonLocalized: { en_US: "Too small", de_DE: "Zu klein" }, comment: "One size up" }],
    })),
  },
});

export async function seedItemReturns(target: Target): Promise<ItemReturnSeed> {
  const c = { now: new Date(), newId, shortId: newShortId };
  // Each scenario seeds its own jobs (tenantOrderIds stay unique in the tenant).
  const batch = newId().slice(-8);
  const facility = newId();
  const jobs = Array.from({ length: READ + WRITE }, (_, i) => {
    let job = createJob(jobBody(batch, i, facility), c);
    for (let n = 0; n < ITEM_RETURNS; n++) job = addItemReturn(job, itemReturnBody(job, facility, n), c).job;
    return job;
  });
  await withDatabase(target, async (db) => {
    await db.query("set search_path = returns");
    await db.query("begin");
    for (const job of jobs) await insertJob(unnamed(db), BASELINE_TENANT, job);
    await db.query("commit");
    await db.query("vacuum analyze item_return_job");
  });
  const lines = (job: ItemReturnJob) =>
    (job.itemReturns as unknown as ItemReturn[]).flatMap((ir) =>
      ir.returnedLineItems.map((l) => `itemreturns/${ir.id}/returnedlineitems/${l.id}`),
    );
  return {
    readIds: jobs.slice(0, READ).map((j) => j.id),
    writeJobs: jobs.slice(READ).map((j) => ({ id: j.id, lines: lines(j) })),
  };
}
