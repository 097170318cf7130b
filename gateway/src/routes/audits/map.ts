/** Pure RPC -> REST mapping for audit records. */
import { isoTimestamp } from "@fop/kit/rpc/proto";
import type { Audit as AuditMessage } from "@fop/proto/fop/audit/v1/audit_pb.js";

export function toAuditJson(m: AuditMessage) {
  const actor = {
    id: m.actor?.id ?? "",
    details: { topic: m.actor?.topic ?? "USER", username: m.actor?.username ?? "" },
  };
  return {
    id: m.id,
    eventId: m.eventId,
    entityRef: m.entityRef,
    entityType: m.entityType,
    entityVersion: Number(m.entityVersion),
    entityCreated: isoTimestamp(m.entityCreated),
    operation: { name: m.operationName, start: isoTimestamp(m.operationStart) },
    actor,
    // One identity provider: the global actor is the actor.
    globalActor: actor,
    client: { api: m.clientApi, rawInfo: m.clientRawInfo },
    trace: m.trace,
    created: isoTimestamp(m.created),
    lastModified: isoTimestamp(m.lastModified),
    anonymizationDate: isoTimestamp(m.anonymizationDate),
    deletionDate: isoTimestamp(m.deletionDate),
    isAnonymized: m.isAnonymized,
    version: Number(m.version),
  };
}
