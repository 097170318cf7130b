/**
 * The returns service's events (our own kinds: the spec names only REFUND_TRIGGERED).
 * CANCELATION_REASON_CREATED / _UPDATED / _DELETED and REROUTE_DESCRIPTION_CREATED / _UPDATED /
 * _DELETED. Payload: the reason after the change (a deleted one as it was).
 * ITEM_RETURN_JOB_CREATED, ITEM_RETURN_JOB_STARTED / _FINISHED / _RESTARTED (status actions) and
 * ITEM_RETURN_JOB_LINE_ITEMS_CHANGED (the line item actions), ITEM_RETURN_ADDED, ITEM_RETURN_<ACTION>
 * (ITEM_RETURN_STARTED, ..._FINISHED, ...), ITEM_RETURN_LINE_ITEM_UPDATED, and the spec's
 * REFUND_TRIGGERED (once per job, when every line item of its item returns is decided). Payload:
 * the job after the change. ITEM_RETURN_PARCEL_CREATED (the job, with the parcel in the item
 * return's parcelRefs) and PARCEL_CREATED (entity PARCEL; payload: the parcel).
 * RETURN_CONFIGURATION_CREATED / _UPDATED and HANDOVER_CONFIGURATION_CREATED / _UPDATED (payload:
 * the configuration).
 */
import { type DomainEvent, entityEvent } from "@fop/kit/events/envelope";
import { documentJson } from "@fop/kit/rpc/proto";
import {
  HandoverConfigurationSchema,
  ItemReturnJobSchema,
  ParcelSchema,
  ReasonSchema,
  ReturnConfigurationSchema,
} from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { HandoverConfiguration } from "../domain/handover-config.ts";
import type { ItemReturnJob } from "../domain/job.ts";
import type { Parcel } from "../domain/parcel.ts";
import type { ReturnConfiguration } from "../domain/return-config.ts";
import type { Reason } from "../domain/types.ts";
import { toJobMessage, toParcelMessage, toReasonMessage } from "../rpc/mapper.ts";

export const reasonEntityType = (r: Reason) =>
  r.action === "CANCELATION" ? "CANCELATION_REASON" : "REROUTE_DESCRIPTION";

export const reasonEvent = (change: "CREATED" | "UPDATED" | "DELETED", r: Reason): DomainEvent =>
  entityEvent(`${reasonEntityType(r)}_${change}`, reasonEntityType(r), r, {
    schema: ReasonSchema,
    message: toReasonMessage(r),
  });

/** The event a job action records: its status change, or the line items changed. */
export const JOB_ACTION_EVENTS: Record<string, string> = {
  StartItemReturnJob: "ITEM_RETURN_JOB_STARTED",
  FinishItemReturnJob: "ITEM_RETURN_JOB_FINISHED",
  RestartItemReturnJob: "ITEM_RETURN_JOB_RESTARTED",
};

export const jobEvent = (type: string, j: ItemReturnJob): DomainEvent =>
  entityEvent(type, "ITEM_RETURN_JOB", j, { schema: ItemReturnJobSchema, message: toJobMessage(j) });

export const parcelEvent = (type: string, p: Parcel): DomainEvent =>
  entityEvent(type, "PARCEL", p, { schema: ParcelSchema, message: toParcelMessage(p) });

/** ITEM_RETURN_ANNOUNCED, _OPENED, _STARTED, _PAUSED, _WAITING_FOR_INPUT, _FINISHED, _CANCELED. */
export const ITEM_RETURN_ACTION_EVENTS: Record<string, string> = {
  AnnounceItemReturn: "ITEM_RETURN_ANNOUNCED",
  OpenItemReturn: "ITEM_RETURN_OPENED",
  StartItemReturn: "ITEM_RETURN_STARTED",
  PauseItemReturn: "ITEM_RETURN_PAUSED",
  WaitForInputItemReturn: "ITEM_RETURN_WAITING_FOR_INPUT",
  FinishItemReturn: "ITEM_RETURN_FINISHED",
  CancelItemReturn: "ITEM_RETURN_CANCELED",
};

/**
 * A tenant configuration's CREATED / _UPDATED event (entityRef: the tenant: there is one per
 * tenant), carrying its version and its document.
 */
function tenantConfigurationEvent(
  entityType: string,
  schema: typeof ReturnConfigurationSchema | typeof HandoverConfigurationSchema,
) {
  return (
    change: "CREATED" | "UPDATED",
    tenant: string,
    c: ReturnConfiguration | HandoverConfiguration,
  ): DomainEvent =>
    entityEvent(
      `${entityType}_${change}`,
      entityType,
      { id: tenant, version: c.version, created: c.created },
      { schema, message: { version: BigInt(c.version), documentJson: documentJson(c) } },
    );
}

export const returnConfigurationEvent = tenantConfigurationEvent(
  "RETURN_CONFIGURATION",
  ReturnConfigurationSchema,
);
export const handoverConfigurationEvent = tenantConfigurationEvent(
  "HANDOVER_CONFIGURATION",
  HandoverConfigurationSchema,
);
