/**
 * An item return's parcels (POST .../itemreturns/{id}/parcels, beta): a ParcelForCreation becomes a
 * Parcel (reference schema) and its id joins the item return's `parcelRefs` (at most 50). What the
 * reference requires of a Parcel and the request may leave out comes from the return: `sender` is
 * the return facility's address, `recipient` the job's first consumer address, `processRef` the
 * job's. A parcel starts OPEN unless the request names its status. A CANCELED or OBSOLETE item
 * return takes no parcels (422). Pure functions; no I/O.
 */
import { invalid, precondition } from "@fop/kit/errors";
import type { ItemReturn } from "./itemreturn.ts";
import type { ItemReturnJob } from "./job.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

export const PARCEL_LIMITS = { parcelsPerItemReturn: 50 } as const;

export interface Parcel {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  status: string;
  carrierRef: string;
  processRef: string;
  sender: JsonObject;
  recipient: JsonObject;
  loadUnitRefs: string[];
  workflowInformation: { isAvailable: boolean };
  tenantParcelId?: string;
  [field: string]: unknown;
}

/** ParcelForCreation fields the parcel keeps as given (the gateway checked their shapes). */
const KEPT = [
  "carrierInformation",
  "carrierProduct",
  "customAttributes",
  "customProductValue",
  "dimensions",
  "invoice",
  "paymentInformation",
  "pickUpInformation",
  "productValue",
  "productValueCurrency",
  "productValueType",
  "result",
  "returnAddress",
  "services",
  "shortId",
  "tenantOrderId",
  "tenantParcelId",
  "transfers",
] as const;

const given = (v: unknown) => v !== undefined && v !== null;

/** A ParcelItem: the item as given, with ids for it and its recordable attributes. */
function parcelItem(item: JsonObject, c: ChangeContext): JsonObject {
  const out: JsonObject = { ...item, id: c.newId() };
  if (Array.isArray(item.recordableAttributes)) {
    out.recordableAttributes = item.recordableAttributes.map((a) => ({
      ...(a as JsonObject),
      id: c.newId(),
    }));
  }
  return out;
}

/** What the parcel takes from outside the job: the return facility's address (undefined: none). */
export interface ParcelDefaults {
  facilityAddress: JsonObject | undefined;
}

/** The item return a parcel is for; undefined when the job has none with this id. */
export function itemReturnOf(job: ItemReturnJob, itemReturnId: string): ItemReturn | undefined {
  return (job.itemReturns as unknown as ItemReturn[]).find((r) => r.id === itemReturnId);
}

function checkPickUp(value: unknown) {
  const p = value as JsonObject | null | undefined;
  if (!p) return;
  if (Date.parse(String(p.startTime)) >= Date.parse(String(p.endTime))) {
    throw invalid(
      "INVALID_VALUE",
      "pickUpInformation/startTime must be before pickUpInformation/endTime.",
      "/pickUpInformation/startTime",
    );
  }
}

/**
 * The parcel a ParcelForCreation makes for the job's item return, and the job with the parcel in
 * the item return's parcelRefs (job version + 1). The caller has checked that the item return
 * exists and that `carrierRef` names one of the tenant's carriers.
 */
export function createParcel(
  job: ItemReturnJob,
  itemReturn: ItemReturn,
  body: JsonObject,
  defaults: ParcelDefaults,
  c: ChangeContext,
): { parcel: Parcel; job: ItemReturnJob } {
  if (itemReturn.status === "CANCELED" || itemReturn.status === "OBSOLETE") {
    throw precondition(
      "ITEM_RETURN_CLOSED",
      `The item return is ${itemReturn.status}: it takes no more parcels.`,
    );
  }
  const refs = (itemReturn.parcelRefs as string[] | undefined) ?? [];
  if (refs.length >= PARCEL_LIMITS.parcelsPerItemReturn) {
    throw invalid(
      "LIMIT_EXCEEDED",
      `An item return holds at most ${PARCEL_LIMITS.parcelsPerItemReturn} parcels (parcelRefs).`,
      "/parcelRefs",
    );
  }
  if (typeof body.carrierRef !== "string" || !body.carrierRef) {
    throw invalid(
      "CARRIER_REQUIRED",
      "carrierRef is required: the carrier that takes the parcel.",
      "/carrierRef",
    );
  }
  const sender = (given(body.sender) ? body.sender : defaults.facilityAddress) as JsonObject | undefined;
  if (!sender) {
    throw invalid(
      "SENDER_REQUIRED",
      `sender is required: the return facility ${itemReturn.returnFacilityRef} has no address.`,
      "/sender",
    );
  }
  const recipient = (given(body.recipient) ? body.recipient : job.consumerAddresses[0]) as
    | JsonObject
    | undefined;
  if (!recipient) {
    throw invalid(
      "RECIPIENT_REQUIRED",
      "recipient is required: the job has no consumer address.",
      "/recipient",
    );
  }
  checkPickUp(body.pickUpInformation);
  const now = c.now.toISOString();
  const parcel: Parcel = {
    id: c.newId(),
    version: 1,
    created: now,
    lastModified: now,
    status: typeof body.status === "string" ? body.status : "OPEN",
    carrierRef: body.carrierRef,
    processRef: job.processRef,
    sender,
    recipient,
    loadUnitRefs: Array.isArray(body.loadUnitRefs) ? (body.loadUnitRefs as string[]) : [],
    workflowInformation: { isAvailable: false },
  };
  const fields: Record<string, unknown> = parcel;
  for (const f of KEPT) if (given(body[f])) fields[f] = body[f];
  if (Array.isArray(body.items)) {
    parcel.items = body.items.map((item) => parcelItem(item as JsonObject, c));
  }
  if (!parcel.tenantOrderId && job.tenantOrderId) parcel.tenantOrderId = job.tenantOrderId;
  const itemReturns = (job.itemReturns as unknown as ItemReturn[]).map((r) =>
    r.id === itemReturn.id ? { ...r, parcelRefs: [...refs, parcel.id], lastModified: now } : r,
  );
  return {
    parcel,
    job: {
      ...job,
      itemReturns: itemReturns as unknown as JsonObject[],
      version: job.version + 1,
      lastModified: now,
    },
  };
}
