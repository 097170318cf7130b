import type { MessageInitShape } from "@bufbuild/protobuf";
import { toTimestamp } from "@fop/kit/rpc/proto";
import type { AuditSchema } from "@fop/proto/fop/audit/v1/audit_pb.js";
import type { AuditRecord } from "../domain/audit.ts";

/** Audit record -> its RPC message. */
export function toAuditMessage(r: AuditRecord): MessageInitShape<typeof AuditSchema> {
  return {
    id: r.id,
    eventId: r.eventId,
    entityRef: r.entityRef,
    entityType: r.entityType,
    entityVersion: BigInt(r.entityVersion),
    entityCreated: toTimestamp(r.entityCreated),
    operationName: r.operationName,
    operationStart: toTimestamp(r.operationStart),
    actor: { id: r.actorId, topic: "USER", username: r.actorUsername },
    clientApi: r.clientApi,
    clientRawInfo: r.clientRawInfo,
    trace: r.trace,
    created: toTimestamp(r.created),
    lastModified: toTimestamp(r.lastModified),
    version: BigInt(r.version),
    anonymizationDate: toTimestamp(r.anonymizationDate),
    deletionDate: toTimestamp(r.deletionDate),
    isAnonymized: r.isAnonymized,
  };
}
