/**
 * The returns service's events (our own kinds: the spec names only REFUND_TRIGGERED).
 * CANCELATION_REASON_CREATED / _UPDATED / _DELETED and REROUTE_DESCRIPTION_CREATED / _UPDATED /
 * _DELETED. Payload: the reason after the change (a deleted one as it was).
 */
import { create } from "@bufbuild/protobuf";
import type { DomainEvent } from "@fop/kit/events/envelope";
import { ReasonSchema } from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { Reason } from "../domain/types.ts";
import { toReasonMessage } from "../rpc/mapper.ts";

export const reasonEntityType = (r: Reason) =>
  r.action === "CANCELATION" ? "CANCELATION_REASON" : "REROUTE_DESCRIPTION";

export const reasonEvent = (change: "CREATED" | "UPDATED" | "DELETED", r: Reason): DomainEvent => ({
  type: `${reasonEntityType(r)}_${change}`,
  entityType: reasonEntityType(r),
  entityRef: r.id,
  entityVersion: r.version,
  entityCreated: new Date(r.created),
  payload: { schema: ReasonSchema, message: create(ReasonSchema, toReasonMessage(r)) },
});
