/**
 * Item returns inside their job: adding one (POST .../itemreturns), its actions (states.ts), and
 * its line items' PATCH (status through the line table, decision reason, refund). Every write names
 * the job's version (`itemReturnJobVersion`) and moves it. The job's line quantities follow the
 * item returns: `returned` counts the returned lines naming a job line (canceled ones not),
 * `returnable` is what is left of `delivered`. Pure functions; no I/O.
 */
import { invalid, notFound } from "@fop/kit/errors";
import { checkList, requireCurrentVersion } from "@fop/kit/validation";
import type { ItemReturnJob, JobLineItem } from "./job.ts";
import {
  ITEM_RETURN_STATUSES,
  type ItemReturnStatus,
  isClosedLine,
  itemReturnTransition,
  lineTransition,
  RETURNED_LINE_ITEM_STATUSES,
  type ReturnedLineItemStatus,
} from "./states.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

/** The spec's limits on an item return and its lines. */
export const ITEM_RETURN_LIMITS = {
  itemReturns: 100,
  lineItems: 100,
  scannableCodes: 50,
  reasons: 20,
  recordableAttributes: 50,
  scannedCodes: 50,
} as const;

export type LineKind = "returned" | "notReturnable";
const LIST: Record<LineKind, "returnedLineItems" | "returnedNotReturnableLineItems"> = {
  returned: "returnedLineItems",
  notReturnable: "returnedNotReturnableLineItems",
};

export interface ReturnLineItem {
  id: string;
  itemReturnJobLineItemRefs: string[];
  tenantArticleId: string;
  status: ReturnedLineItemStatus;
  [field: string]: unknown;
}

export interface ItemReturn {
  id: string;
  created: string;
  lastModified: string;
  status: ItemReturnStatus;
  returnFacilityRef: string;
  returnedLineItems: ReturnLineItem[];
  returnedNotReturnableLineItems: ReturnLineItem[];
  [field: string]: unknown;
}

const OPTIONAL_LINE_FIELDS = ["itemConditionLocalized", "customAttributes", "itemCondition"] as const;

/** A reason as stored: `reason` is the text of the first locale given (the reference's "translated"). */
function reasonOf(value: unknown, field: string): JsonObject {
  const r = value as JsonObject | undefined;
  const localized = r?.reasonLocalized as Record<string, string> | undefined;
  if (!r || typeof localized !== "object" || localized === null || Object.keys(localized).length === 0) {
    throw invalid("REASON_REQUIRED", `${field.slice(1)} needs reasonLocalized.`, field);
  }
  if (r.comment !== undefined && (typeof r.comment !== "string" || r.comment === "")) {
    throw invalid("INVALID_VALUE", `${field.slice(1)}/comment must not be empty.`, `${field}/comment`);
  }
  return { ...r, reason: Object.values(localized)[0] ?? "" };
}

function checkStatus<S extends string>(values: readonly S[], value: unknown, field: string): S {
  if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
    throw invalid("INVALID_STATUS", `${field.slice(1)} must be one of ${values.join(", ")}.`, field);
  }
  return value as S;
}

/** A returned line from ItemReturnLineItemForCreation; it must name a job line of the right list. */
function returnLine(
  input: JsonObject,
  jobLines: JobLineItem[],
  kind: LineKind,
  c: ChangeContext,
  field: string,
): ReturnLineItem {
  const ref = input.itemReturnJobLineItemRef;
  const jobLine = jobLines.find((l) => l.id === ref);
  if (typeof ref !== "string" || !jobLine) {
    throw invalid(
      "LINE_ITEM_NOT_FOUND",
      `${field.slice(1)}/itemReturnJobLineItemRef: ${JSON.stringify(ref)} is not a ${kind === "returned" ? "returnable" : "not returnable"} line item of the job.`,
      `${field}/itemReturnJobLineItemRef`,
    );
  }
  if (
    input.itemConditionComment !== undefined &&
    (typeof input.itemConditionComment !== "string" || input.itemConditionComment === "")
  ) {
    throw invalid(
      "INVALID_VALUE",
      `${field.slice(1)}/itemConditionComment must not be empty.`,
      `${field}/itemConditionComment`,
    );
  }
  const line: ReturnLineItem = {
    id: c.newId(),
    itemReturnJobLineItemRefs: [ref],
    tenantArticleId:
      typeof input.tenantArticleId === "string" && input.tenantArticleId
        ? input.tenantArticleId
        : String(jobLine.article.tenantArticleId),
    status: checkStatus(RETURNED_LINE_ITEM_STATUSES, input.status, `${field}/status`),
  };
  for (const f of OPTIONAL_LINE_FIELDS) if (input[f] !== undefined && input[f] !== null) line[f] = input[f];
  if (input.itemConditionComment !== undefined) line.itemConditionComment = input.itemConditionComment;
  const reasons = checkList(input.reasons, ITEM_RETURN_LIMITS.reasons, `${field}/reasons`);
  if (reasons) line.reasons = reasons.map((r, i) => reasonOf(r, `${field}/reasons/${i}`));
  if (input.decisionReason !== undefined)
    line.decisionReason = reasonOf(input.decisionReason, `${field}/decisionReason`);
  const attributes = checkList(
    input.recordableAttributes,
    ITEM_RETURN_LIMITS.recordableAttributes,
    `${field}/recordableAttributes`,
  );
  if (attributes)
    line.recordableAttributes = attributes.map((a) => ({ ...(a as JsonObject), id: c.newId() }));
  const scanned = checkList(input.scannedCodes, ITEM_RETURN_LIMITS.scannedCodes, `${field}/scannedCodes`);
  if (scanned) line.scannedCodes = scanned;
  return line;
}

function returnLines(list: unknown, job: ItemReturnJob, kind: LineKind, c: ChangeContext, field: string) {
  const jobLines = kind === "returned" ? job.returnableLineItems : job.notReturnableLineItems;
  return (checkList(list, ITEM_RETURN_LIMITS.lineItems, field) ?? []).map((l, i) =>
    returnLine(l as JsonObject, jobLines, kind, c, `${field}/${i}`),
  );
}

/** The job's line quantities recounted from its item returns. */
function recount(job: ItemReturnJob): ItemReturnJob {
  const returned = new Map<string, number>();
  for (const ir of job.itemReturns as unknown as ItemReturn[]) {
    if (ir.status === "CANCELED" || ir.status === "OBSOLETE") continue;
    for (const l of ir.returnedLineItems) {
      if (l.status === "CANCELED") continue;
      for (const ref of l.itemReturnJobLineItemRefs) returned.set(ref, (returned.get(ref) ?? 0) + 1);
    }
  }
  const count = (l: JobLineItem, returnable: boolean): JobLineItem => {
    const n = returned.get(l.id) ?? 0;
    return { ...l, returned: n, returnable: returnable ? Math.max(0, l.delivered - n) : 0 };
  };
  return {
    ...job,
    returnableLineItems: job.returnableLineItems.map((l) => count(l, true)),
    notReturnableLineItems: job.notReturnableLineItems.map((l) => count(l, false)),
  };
}

const touch = (job: ItemReturnJob, itemReturns: ItemReturn[], c: ChangeContext): ItemReturnJob =>
  recount({
    ...job,
    itemReturns: itemReturns as unknown as JsonObject[],
    version: job.version + 1,
    lastModified: c.now.toISOString(),
  });

const checkJobVersion = (job: ItemReturnJob, version: unknown) =>
  requireCurrentVersion("item return job", job, version, "/itemReturnJobVersion");

function findItemReturn(job: ItemReturnJob, id: string): number {
  const i = (job.itemReturns as unknown as ItemReturn[]).findIndex((r) => r.id === id);
  if (i < 0) throw notFound("item return", id);
  return i;
}

/** POST .../itemreturns: {itemReturnJobVersion, itemReturnForCreation} -> the job with it added. */
export function addItemReturn(job: ItemReturnJob, body: JsonObject, c: ChangeContext) {
  checkJobVersion(job, body.itemReturnJobVersion);
  const input = body.itemReturnForCreation as JsonObject | undefined;
  if (!input || typeof input !== "object") {
    throw invalid("ITEM_RETURN_REQUIRED", "itemReturnForCreation is required.", "/itemReturnForCreation");
  }
  if (job.itemReturns.length >= ITEM_RETURN_LIMITS.itemReturns) {
    throw invalid(
      "LIMIT_EXCEEDED",
      `A job holds at most ${ITEM_RETURN_LIMITS.itemReturns} item returns.`,
      "/itemReturnForCreation",
    );
  }
  const at = "/itemReturnForCreation";
  if (typeof input.returnFacilityRef !== "string" || !input.returnFacilityRef) {
    throw invalid("RETURN_FACILITY_REQUIRED", "returnFacilityRef is required.", `${at}/returnFacilityRef`);
  }
  if (!Array.isArray(input.returnedLineItems)) {
    throw invalid(
      "LINE_ITEMS_REQUIRED",
      "returnedLineItems is required (it may be empty).",
      `${at}/returnedLineItems`,
    );
  }
  const now = c.now.toISOString();
  const itemReturn: ItemReturn = {
    id: c.newId(),
    created: now,
    lastModified: now,
    status: checkStatus(ITEM_RETURN_STATUSES, input.status, `${at}/status`),
    returnFacilityRef: input.returnFacilityRef,
    returnedLineItems: returnLines(input.returnedLineItems, job, "returned", c, `${at}/returnedLineItems`),
    returnedNotReturnableLineItems: returnLines(
      input.returnedNotReturnableLineItems,
      job,
      "notReturnable",
      c,
      `${at}/returnedNotReturnableLineItems`,
    ),
  };
  const codes = checkList(input.scannableCodes, ITEM_RETURN_LIMITS.scannableCodes, `${at}/scannableCodes`);
  if (codes) itemReturn.scannableCodes = codes;
  if (job.tenantOrderId) itemReturn.tenantOrderId = job.tenantOrderId;
  if (input.customAttributes !== undefined && input.customAttributes !== null) {
    itemReturn.customAttributes = input.customAttributes;
  }
  const next = touch(job, [...(job.itemReturns as unknown as ItemReturn[]), itemReturn], c);
  return { job: next, itemReturn };
}

/** POST .../itemreturns/{id}/actions: the item return's status through its table. */
export function itemReturnAction(job: ItemReturnJob, id: string, action: JsonObject, c: ChangeContext) {
  const i = findItemReturn(job, id);
  checkJobVersion(job, action.itemReturnJobVersion);
  const list = [...(job.itemReturns as unknown as ItemReturn[])];
  const current = list[i] as ItemReturn;
  const itemReturn = {
    ...current,
    status: itemReturnTransition(current.status, String(action.name)),
    lastModified: c.now.toISOString(),
  };
  list[i] = itemReturn;
  return { job: touch(job, list, c), itemReturn };
}

function checkRefund(value: unknown): JsonObject {
  const r = value as JsonObject;
  const hasPrice = r.price !== undefined && r.price !== null;
  const hasPercent = r.percent !== undefined && r.percent !== null;
  if (hasPrice === hasPercent) {
    throw invalid(
      "INVALID_REFUND",
      "A refund names either price or percent, not both and not neither.",
      "/refund",
    );
  }
  if (hasPercent && (typeof r.percent !== "number" || r.percent < 0 || r.percent > 100)) {
    throw invalid("INVALID_REFUND", "refund.percent is 0 to 100.", "/refund/percent");
  }
  return r;
}

/**
 * PATCH .../returnedlineitems/{lineId} (kind "returned") or .../returnednotreturnablelineitems/{lineId}:
 * `status` through the line table, `decisionReason`, and (returned lines only) `refund`.
 */
export function patchReturnLine(
  job: ItemReturnJob,
  itemReturnId: string,
  kind: LineKind,
  lineId: string,
  body: JsonObject,
  c: ChangeContext,
) {
  const i = findItemReturn(job, itemReturnId);
  checkJobVersion(job, body.itemReturnJobVersion);
  const list = [...(job.itemReturns as unknown as ItemReturn[])];
  const ir = list[i] as ItemReturn;
  const lines = [...ir[LIST[kind]]];
  const j = lines.findIndex((l) => l.id === lineId);
  if (j < 0)
    throw notFound(kind === "returned" ? "returned line item" : "returned not returnable line item", lineId);
  const line = { ...(lines[j] as ReturnLineItem) };
  if (body.status !== undefined) {
    line.status = lineTransition(
      line.status,
      checkStatus(RETURNED_LINE_ITEM_STATUSES, body.status, "/status"),
    );
  }
  if (body.decisionReason !== undefined)
    line.decisionReason = reasonOf(body.decisionReason, "/decisionReason");
  if (body.refund !== undefined) {
    if (kind !== "returned")
      throw invalid("UNKNOWN_FIELD", "Only returned line items have a refund.", "/refund");
    line.refund = checkRefund(body.refund);
  }
  lines[j] = line;
  list[i] = { ...ir, [LIST[kind]]: lines, lastModified: c.now.toISOString() };
  return { job: touch(job, list, c), line };
}

/**
 * PUT .../returnedlineitems or .../returnednotreturnablelineitems: the item return's list replaced
 * by 1 to 100 new lines (new ids), on the job version the body names.
 */
export function replaceReturnLines(
  job: ItemReturnJob,
  itemReturnId: string,
  kind: LineKind,
  body: JsonObject,
  c: ChangeContext,
) {
  const i = findItemReturn(job, itemReturnId);
  checkJobVersion(job, body.itemReturnJobVersion);
  const field = `/${LIST[kind]}`;
  const given = body[LIST[kind]];
  if (!Array.isArray(given) || given.length === 0) {
    throw invalid(
      "LINE_ITEMS_REQUIRED",
      `${LIST[kind]} needs 1 to ${ITEM_RETURN_LIMITS.lineItems} line items.`,
      field,
    );
  }
  const list = [...(job.itemReturns as unknown as ItemReturn[])];
  const ir = list[i] as ItemReturn;
  list[i] = {
    ...ir,
    [LIST[kind]]: returnLines(given, job, kind, c, field),
    lastModified: c.now.toISOString(),
  };
  return { job: touch(job, list, c), itemReturn: list[i] as ItemReturn };
}

/** The deprecated DELETE .../itemreturns/{id}?itemReturnJobVersion=: the item return removed. */
export function removeItemReturn(
  job: ItemReturnJob,
  itemReturnId: string,
  version: unknown,
  c: ChangeContext,
) {
  const i = findItemReturn(job, itemReturnId);
  checkJobVersion(job, version);
  const list = (job.itemReturns as unknown as ItemReturn[]).filter((_, j) => j !== i);
  return { job: touch(job, list, c) };
}

/**
 * Whether every line item of the job's item returns (those not canceled or obsolete) is decided:
 * ACCEPTED, REJECTED or CANCELED. A job without any line item is not.
 */
export function allLinesClosed(job: ItemReturnJob): boolean {
  const lines = (job.itemReturns as unknown as ItemReturn[])
    .filter((ir) => ir.status !== "CANCELED" && ir.status !== "OBSOLETE")
    .flatMap((ir) => [...ir.returnedLineItems, ...ir.returnedNotReturnableLineItems]);
  return lines.length > 0 && lines.every((l) => isClosedLine(l.status));
}
