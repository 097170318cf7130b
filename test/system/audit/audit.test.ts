/**
 * Every change is recorded: category and facility writes reach the audit log through the outbox,
 * JetStream and the audit-records consumer, with versions, actor and the request's trace id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("auditee", { user: "ada.lovelace" }));
});
afterAll(() => sys?.close());

const traceOf = (res: { headers: Headers }) => res.headers.get("traceresponse")!.split("-")[1];

async function auditsOf(entityRef: string, expected: number) {
  return eventually(async () => {
    const res = await api("POST", "/api/audits/search", {
      query: { entityRef: { eq: entityRef } },
      sort: [{ created: "ASC" }],
      options: { withTotal: true },
    });
    expect(res.status).toBe(200);
    return res.body.audits.length >= expected ? res.body : undefined;
  });
}

describe("audit log", () => {
  it("records create, update and delete of a category: versions in order, actor, trace of each write", async () => {
    const created = await api("POST", "/api/categories", {
      tenantCategoryId: "AUDITED",
      nameLocalized: { en_US: "A" },
    });
    const updated = await api("PUT", `/api/categories/${created.body.id}`, {
      version: 1,
      nameLocalized: { en_US: "B" },
    });
    const deleted = await api("DELETE", `/api/categories/${created.body.id}`);
    expect([created.status, updated.status, deleted.status]).toEqual([201, 200, 200]);

    const result = await auditsOf(created.body.id, 3);
    expect(result.total).toBe(3);
    const audits = result.audits;
    // Pages of the list keep the total of all matches, also past the last record.
    const page = (after: string) =>
      api("GET", `/api/audits?entityRef=${created.body.id}&size=2${after ? `&startAfterId=${after}` : ""}`);
    const ids = audits.map((a: any) => a.id);
    expect((await page("")).body).toMatchObject({ total: 3, audits: [{ id: ids[0] }, { id: ids[1] }] });
    expect((await page(ids[1])).body).toMatchObject({ total: 3, audits: [{ id: ids[2] }] });
    expect((await page(ids[2])).body).toEqual({ total: 3, audits: [] });
    expect(audits.map((a: any) => a.entityVersion)).toEqual([1, 2, 3]);
    expect(audits.map((a: any) => a.operation.name)).toEqual([
      "CATEGORY_CREATED",
      "CATEGORY_UPDATED",
      "CATEGORY_DELETED",
    ]);
    expect(audits.map((a: any) => a.trace)).toEqual([traceOf(created), traceOf(updated), traceOf(deleted)]);
    for (const a of audits) {
      expect(a).toMatchObject({
        entityRef: created.body.id,
        entityType: "CATEGORY",
        entityCreated: created.body.created,
        actor: { id: "ada.lovelace", details: { username: "ada.lovelace" } },
        client: { api: "REST" },
        isAnonymized: false,
        version: 1,
      });
      expect(Date.parse(a.deletionDate)).toBeGreaterThan(Date.parse(a.anonymizationDate) - 1);
    }
    // Each record comes from its own event.
    expect(new Set(audits.map((a: any) => a.eventId)).size).toBe(3);
  });

  it("records facility changes, searchable by trace and entity type; the deprecated list says so", async () => {
    const f = await api("POST", "/api/facilities", {
      name: "Audited store",
      address: { companyName: "C", street: "S", postalCode: "1", city: "C", country: "DE" },
    });
    await auditsOf(f.body.id, 1);
    const byTrace = await api("POST", "/api/audits/search", { query: { trace: { eq: traceOf(f) } } });
    expect(byTrace.body.audits).toHaveLength(1);
    expect(byTrace.body.audits[0]).toMatchObject({
      entityType: "FACILITY",
      operation: { name: "FACILITY_CREATED" },
    });
    const byType = await api("POST", "/api/audits/search", {
      query: { and: [{ entityType: { eq: "FACILITY" } }, { entityRef: { in: [f.body.id] } }] },
    });
    expect(byType.body.audits).toHaveLength(1);

    const list = await api("GET", `/api/audits?entityRef=${f.body.id}`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, audits: [{ entityRef: f.body.id }] });
    expect(list.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(list.headers.get("link")).toBe('</api/audits/search>; rel="successor-version"');
    expect((await api("GET", "/api/audits?entityType=FACILITY&size=1")).body.audits).toHaveLength(1);
    if (!referenceMissing) {
      expect(referenceErrors("AuditsResult", list.body)).toEqual([]);
      expect(referenceErrors("AuditPaginatedResult", byTrace.body)).toEqual([]);
    }
  });

  it("needs AUDIT_READ and rejects unknown query fields", async () => {
    const noAudit = sys.as(await sys.token("auditee", { permissions: ["CATEGORY_READ"] }));
    expect((await noAudit("POST", "/api/audits/search", { query: {} })).status).toBe(403);
    expect((await noAudit("GET", "/api/audits")).status).toBe(403);
    const auditor = sys.as(await sys.token("auditee", { roles: ["AUDITOR"] }));
    expect((await auditor("GET", "/api/audits")).status).toBe(200);
    expect((await api("POST", "/api/audits/search", { query: { actor: { eq: "x" } } })).status).toBe(400);
    expect(
      (await api("POST", "/api/audits/search", { query: { entityType: { eq: "SPACESHIP" } } })).status,
    ).toBe(400);
    expect(
      (await api("POST", "/api/audits/search", { query: {}, sort: [{ entityRef: "ASC" }] })).status,
    ).toBe(400);
  });

  it("tenant B finds none of tenant A's audit records", async () => {
    const c = await api("POST", "/api/categories", { nameLocalized: { en_US: "mine" } });
    await auditsOf(c.body.id, 1);
    const b = sys.as(await sys.token("other-tenant"));
    expect(
      (
        await b("POST", "/api/audits/search", {
          query: { entityRef: { eq: c.body.id } },
          options: { withTotal: true },
        })
      ).body,
    ).toMatchObject({ audits: [], total: 0 });
    expect(
      (await b("POST", "/api/audits/search", { query: {}, options: { withTotal: true } })).body.total,
    ).toBe(0);
    expect((await b("GET", `/api/audits?entityRef=${c.body.id}`)).body).toEqual({ audits: [], total: 0 });
    expect((await b("GET", "/api/audits")).body).toEqual({ audits: [], total: 0 });
  });
});
