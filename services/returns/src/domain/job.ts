/**
 * Item return jobs: creation from ItemReturnJobForCreation and the job actions of
 * POST /api/itemreturnjobs/{id}/actions (status changes through the table in states.ts; moving job
 * line items between returnable and not returnable; replacing them). Item returns live inside their
 * job (at most 100) and are versioned with it. Pure functions; no I/O.
 */
import { invalid } from "@fop/kit/errors";
import { checkList, requireCurrentVersion } from "@fop/kit/validation";
import { ITEM_RETURN_JOB_STATUSES, type ItemReturnJobStatus, jobTransition } from "./states.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

/** The spec's limits on a job. */
export const JOB_LIMITS = {
  originFacilityRefs: 50,
  consumerAddresses: 5,
  lineItems: 100,
  scannableCodes: 50,
  actionLineItems: 20,
  recordableAttributes: 50,
} as const;

export interface JobLineItem {
  id: string;
  article: JsonObject;
  delivered: number;
  returnable: number;
  returned: number;
  [field: string]: unknown;
}

export interface ItemReturnJob {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  processRef: string;
  shortId: string;
  status: ItemReturnJobStatus;
  anonymized: boolean;
  originFacilityRefs: string[];
  consumerAddresses: JsonObject[];
  returnableLineItems: JobLineItem[];
  notReturnableLineItems: JobLineItem[];
  itemReturns: JsonObject[];
  scannableCodes?: string[];
  tenantOrderId?: string;
  customAttributes?: JsonObject | null;
}

export interface JobContext extends ChangeContext {
  shortId: () => string;
}

const OPTIONAL_LINE_FIELDS = [
  "customAttributes",
  "globalLineItemId",
  "scannableCodes",
  "serviceJobRefs",
] as const;

/** A job line item from ItemReturnJobLineItemForCreation: an id, nothing returned yet. */
function lineItem(input: JsonObject, returnable: boolean, c: ChangeContext, field: string): JobLineItem {
  const delivered = input.delivered;
  if (typeof delivered !== "number" || !Number.isInteger(delivered) || delivered < 1) {
    throw invalid(
      "INVALID_QUANTITY",
      "delivered must be a whole number of at least 1.",
      `${field}/delivered`,
    );
  }
  const article = input.article as JsonObject | undefined;
  if (!article || typeof article.tenantArticleId !== "string" || typeof article.title !== "string") {
    throw invalid("ARTICLE_REQUIRED", "article needs tenantArticleId and title.", `${field}/article`);
  }
  checkList(input.scannableCodes, JOB_LIMITS.scannableCodes, `${field}/scannableCodes`);
  const line: JobLineItem = {
    id: c.newId(),
    article,
    delivered,
    returnable: returnable ? delivered : 0,
    returned: 0,
  };
  for (const f of OPTIONAL_LINE_FIELDS) if (input[f] !== undefined && input[f] !== null) line[f] = input[f];
  const attributes = checkList(
    input.recordableAttributes,
    JOB_LIMITS.recordableAttributes,
    `${field}/recordableAttributes`,
  );
  if (attributes) {
    line.recordableAttributes = attributes.map((a) => ({
      ...(a as JsonObject),
      id: c.newId(),
    }));
  }
  return line;
}

const lineItems = (list: unknown, returnable: boolean, c: ChangeContext, field: string, max: number) =>
  (checkList(list, max, field) ?? []).map((x, i) =>
    lineItem(x as JsonObject, returnable, c, `${field}/${i}`),
  );

/** POST /api/itemreturnjobs: the job as the body describes it (its status included), version 1. */
export function createJob(input: JsonObject, c: JobContext): ItemReturnJob {
  const status = input.status;
  if (typeof status !== "string" || !(ITEM_RETURN_JOB_STATUSES as readonly string[]).includes(status)) {
    throw invalid(
      "INVALID_STATUS",
      `status must be one of ${ITEM_RETURN_JOB_STATUSES.join(", ")}.`,
      "/status",
    );
  }
  const refs =
    checkList(input.originFacilityRefs, JOB_LIMITS.originFacilityRefs, "/originFacilityRefs") ?? [];
  const addresses =
    checkList(input.consumerAddresses, JOB_LIMITS.consumerAddresses, "/consumerAddresses", 1) ?? [];
  checkList(input.scannableCodes, JOB_LIMITS.scannableCodes, "/scannableCodes");
  const at = c.now.toISOString();
  const job: ItemReturnJob = {
    id: c.newId(),
    version: 1,
    created: at,
    lastModified: at,
    processRef: typeof input.processRef === "string" && input.processRef ? input.processRef : c.newId(),
    shortId: typeof input.shortId === "string" && input.shortId ? input.shortId : c.shortId(),
    status: status as ItemReturnJobStatus,
    anonymized: false,
    originFacilityRefs: [...new Set(refs as string[])],
    consumerAddresses: addresses as JsonObject[],
    returnableLineItems: lineItems(
      input.returnableLineItems,
      true,
      c,
      "/returnableLineItems",
      JOB_LIMITS.lineItems,
    ),
    notReturnableLineItems: lineItems(
      input.notReturnableLineItems,
      false,
      c,
      "/notReturnableLineItems",
      JOB_LIMITS.lineItems,
    ),
    itemReturns: [],
  };
  for (const f of ["scannableCodes", "tenantOrderId", "customAttributes"] as const) {
    if (input[f] !== undefined && input[f] !== null) (job as unknown as JsonObject)[f] = input[f];
  }
  return job;
}

/** Moves the named job line items from one list to the other (returnable: what is not returned yet). */
function moveLines(job: ItemReturnJob, ids: unknown, toReturnable: boolean): ItemReturnJob {
  const wanted = checkList(ids, JOB_LIMITS.actionLineItems, "/lineItemIds", 1) as string[];
  const from = toReturnable ? job.notReturnableLineItems : job.returnableLineItems;
  const to = toReturnable ? job.returnableLineItems : job.notReturnableLineItems;
  wanted.forEach((id, i) => {
    if (!from.some((l) => l.id === id)) {
      throw invalid(
        "LINE_ITEM_NOT_FOUND",
        `lineItemIds/${i}: ${JSON.stringify(id)} is not a ${toReturnable ? "not returnable" : "returnable"} line item of the job.`,
        `/lineItemIds/${i}`,
      );
    }
  });
  const moving = from
    .filter((l) => wanted.includes(l.id))
    .map((l) => ({ ...l, returnable: toReturnable ? Math.max(0, l.delivered - l.returned) : 0 }));
  const staying = from.filter((l) => !wanted.includes(l.id));
  if (to.length + moving.length > JOB_LIMITS.lineItems) {
    const list = toReturnable ? "returnableLineItems" : "notReturnableLineItems";
    throw invalid(
      "LIMIT_EXCEEDED",
      `lineItemIds: ${list} would hold ${to.length + moving.length} line items; a job holds at most ${JOB_LIMITS.lineItems} per list.`,
      "/lineItemIds",
    );
  }
  return toReturnable
    ? { ...job, returnableLineItems: [...to, ...moving], notReturnableLineItems: staying }
    : { ...job, returnableLineItems: staying, notReturnableLineItems: [...to, ...moving] };
}

/**
 * One job action on the version it names: Start/Finish/RestartItemReturnJob change the status
 * (states.ts); CHANGE_LINE_ITEMS_TO_(NOT_)RETURNABLE_IN_ITEM_RETURN_JOB move line items;
 * REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB replaces the lists it gives. Version + 1, lastModified.
 */
export function jobAction(job: ItemReturnJob, action: JsonObject, c: ChangeContext): ItemReturnJob {
  requireCurrentVersion("item return job", job, action.version);
  const name = String(action.name);
  let next: ItemReturnJob;
  switch (name) {
    case "CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB":
      next = moveLines(job, action.lineItemIds, false);
      break;
    case "CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB":
      next = moveLines(job, action.lineItemIds, true);
      break;
    case "REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB": {
      const max = JOB_LIMITS.actionLineItems;
      next = { ...job };
      if (action.returnableLineItems !== undefined) {
        next.returnableLineItems = lineItems(
          action.returnableLineItems,
          true,
          c,
          "/returnableLineItems",
          max,
        );
      }
      if (action.notReturnableLineItems !== undefined) {
        next.notReturnableLineItems = lineItems(
          action.notReturnableLineItems,
          false,
          c,
          "/notReturnableLineItems",
          max,
        );
      }
      break;
    }
    default:
      next = { ...job, status: jobTransition(job.status, name) };
  }
  return { ...next, version: job.version + 1, lastModified: c.now.toISOString() };
}
