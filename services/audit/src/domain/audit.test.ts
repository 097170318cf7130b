import { describe, expect, it } from "vitest";
import { ANONYMIZED, type AuditedEvent, anonymize, auditFromEvent } from "./audit.ts";

const NOW = new Date("2026-05-01T00:00:00.000Z");
const DAY = 86_400_000;
const event: AuditedEvent = {
  id: "e1",
  type: "CATEGORY_UPDATED",
  entityType: "CATEGORY",
  entityRef: "c1",
  entityVersion: 2,
  entityCreated: new Date("2026-04-01T00:00:00.000Z"),
  occurredAt: new Date("2026-04-30T23:59:59.000Z"),
  actor: { id: "u1", username: "ada" },
  client: { api: "REST", rawInfo: "curl/8" },
  traceId: "abc",
};

describe("audit records", () => {
  it("come from events, with retention dates", () => {
    expect(auditFromEvent(event, "a1", NOW, { retentionMs: 365 * DAY, anonymizeAfterMs: 30 * DAY })).toEqual({
      id: "a1",
      eventId: "e1",
      entityRef: "c1",
      entityType: "CATEGORY",
      entityVersion: 2,
      entityCreated: new Date("2026-04-01T00:00:00.000Z"),
      operationName: "CATEGORY_UPDATED",
      operationStart: new Date("2026-04-30T23:59:59.000Z"),
      actorId: "u1",
      actorUsername: "ada",
      clientApi: "REST",
      clientRawInfo: "curl/8",
      trace: "abc",
      created: NOW,
      lastModified: NOW,
      version: 1,
      anonymizationDate: new Date(NOW.getTime() + 30 * DAY),
      deletionDate: new Date(NOW.getTime() + 365 * DAY),
      isAnonymized: false,
    });
  });

  it("never anonymize after deletion", () => {
    const r = auditFromEvent(event, "a1", NOW, { retentionMs: DAY, anonymizeAfterMs: 30 * DAY });
    expect(r.anonymizationDate).toEqual(r.deletionDate);
  });

  it("lose personal data when anonymized, once", () => {
    const r = auditFromEvent(event, "a1", NOW, { retentionMs: DAY, anonymizeAfterMs: DAY });
    const later = new Date(NOW.getTime() + DAY);
    const a = anonymize(r, later);
    expect(a).toMatchObject({
      actorUsername: ANONYMIZED,
      clientRawInfo: "",
      isAnonymized: true,
      version: 2,
      lastModified: later,
      actorId: "u1",
    });
    expect(anonymize(a, later)).toBe(a);
  });
});
