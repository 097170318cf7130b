import { defineEntity, p } from "@mikro-orm/core";

/** audit.audit_record: one row per audited event. */
export const AuditRecordSchema = defineEntity({
  name: "AuditRecord",
  tableName: "audit_record",
  properties: {
    tenantId: p.string().primary(),
    id: p.uuid().primary(),
    eventId: p.uuid(),
    entityRef: p.string(),
    entityType: p.string(),
    entityVersion: p.integer(),
    entityCreated: p.datetime(3),
    operationName: p.string(),
    operationStart: p.datetime(3),
    actorId: p.string(),
    actorUsername: p.string(),
    clientApi: p.string(),
    clientRawInfo: p.string(),
    trace: p.string(),
    created: p.datetime(3),
    lastModified: p.datetime(3),
    version: p.integer().version(),
    anonymizationDate: p.datetime(3),
    deletionDate: p.datetime(3),
    isAnonymized: p.boolean(),
  },
});

export class AuditRecordEntity extends AuditRecordSchema.class {}
AuditRecordSchema.setClass(AuditRecordEntity);
