/** Audit records: what one event becomes, and the retention rules. Pure. */

/** What an audit record is made of: an event as the wire carries it, read into plain values. */
export interface AuditedEvent {
  id: string;
  /** The event kind, e.g. CATEGORY_UPDATED. */
  type: string;
  entityRef: string;
  entityType: string;
  entityVersion: number;
  entityCreated?: Date | undefined;
  occurredAt?: Date | undefined;
  actor?: { id: string; username: string } | undefined;
  client?: { api: string; rawInfo: string } | undefined;
  traceId: string;
}

export interface AuditRecord {
  id: string;
  eventId: string;
  entityRef: string;
  entityType: string;
  entityVersion: number;
  entityCreated: Date;
  operationName: string;
  operationStart: Date;
  actorId: string;
  actorUsername: string;
  clientApi: string;
  clientRawInfo: string;
  trace: string;
  created: Date;
  lastModified: Date;
  version: number;
  anonymizationDate: Date;
  deletionDate: Date;
  isAnonymized: boolean;
}

export interface RetentionPolicy {
  /** Records are deleted this long after they were written. */
  retentionMs: number;
  /** Personal data (usernames, client info) is anonymized this long after writing. */
  anonymizeAfterMs: number;
}

/** What anonymized personal data reads as. */
export const ANONYMIZED = "ANONYMIZED";

export function auditFromEvent(e: AuditedEvent, id: string, now: Date, policy: RetentionPolicy): AuditRecord {
  const anonymizeAfter = Math.min(policy.anonymizeAfterMs, policy.retentionMs);
  return {
    id,
    eventId: e.id,
    entityRef: e.entityRef,
    entityType: e.entityType,
    entityVersion: e.entityVersion,
    entityCreated: e.entityCreated ?? now,
    operationName: e.type,
    operationStart: e.occurredAt ?? now,
    actorId: e.actor?.id ?? "",
    actorUsername: e.actor?.username ?? "",
    clientApi: e.client?.api ?? "",
    clientRawInfo: e.client?.rawInfo ?? "",
    trace: e.traceId,
    created: now,
    lastModified: now,
    version: 1,
    anonymizationDate: new Date(now.getTime() + anonymizeAfter),
    deletionDate: new Date(now.getTime() + policy.retentionMs),
    isAnonymized: false,
  };
}

/** The record with its personal data removed. */
export function anonymize(r: AuditRecord, now: Date): AuditRecord {
  if (r.isAnonymized) return r;
  return {
    ...r,
    actorUsername: ANONYMIZED,
    clientRawInfo: "",
    isAnonymized: true,
    version: r.version + 1,
    lastModified: now,
  };
}
