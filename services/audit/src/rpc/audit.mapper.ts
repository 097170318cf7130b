import type { MessageInitShape } from "@bufbuild/protobuf";
import { documentJson } from "@fop/kit/rpc/proto";
import type { AuditSchema } from "@fop/proto/fop/audit/v1/audit_pb.js";
import type { AuditRecord } from "../domain/audit.ts";

const iso = (d: Date) => d.toISOString();

/** The REST document of an audit record (the reference's Audit). */
function auditDocument(r: AuditRecord) {
  // One identity provider: the global actor is the actor.
  const actor = { id: r.actorId, details: { topic: "USER", username: r.actorUsername } };
  return {
    id: r.id,
    eventId: r.eventId,
    entityRef: r.entityRef,
    entityType: r.entityType,
    entityVersion: r.entityVersion,
    entityCreated: iso(r.entityCreated),
    operation: { name: r.operationName, start: iso(r.operationStart) },
    actor,
    globalActor: actor,
    client: { api: r.clientApi, rawInfo: r.clientRawInfo },
    trace: r.trace,
    created: iso(r.created),
    lastModified: iso(r.lastModified),
    anonymizationDate: iso(r.anonymizationDate),
    deletionDate: iso(r.deletionDate),
    isAnonymized: r.isAnonymized,
    version: r.version,
  };
}

/** Audit record -> its RPC message: the envelope and the REST document. */
export function toAuditMessage(r: AuditRecord): MessageInitShape<typeof AuditSchema> {
  return {
    id: r.id,
    entityRef: r.entityRef,
    version: BigInt(r.version),
    documentJson: documentJson(auditDocument(r)),
  };
}
