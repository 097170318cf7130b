/**
 * The deprecated `startAfterId` of every search body (categories, facility groups, pick jobs, audits,
 * notifications) pages like `after`: each page continues after, excluding, the named entity in the
 * request's sort order (ASC and DESC), combined with the query, until an empty last page. An id that
 * names no entity of the caller's tenant is a 400 naming startAfterId, the same for another tenant's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress, pickJobBody } from "../../support/fixtures.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

const N = 5;
let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilityId: string;
let otherCategoryId: string;

interface Endpoint {
  path: string;
  /** The result's list property. */
  key: string;
  /** Matches the N entities the test made (and nothing else of the tenant). */
  query: () => Record<string, unknown>;
  sorts: Record<string, string>[];
}

const endpoints: Endpoint[] = [
  {
    path: "/api/categories/search",
    key: "categories",
    query: () => ({ tenantCategoryId: { like: "^PAGED_" } }),
    sorts: [{ created: "ASC" }, { created: "DESC" }, { name: "ASC" }, { name: "DESC" }],
  },
  {
    path: "/api/facilitygroups/search",
    key: "facilityGroups",
    query: () => ({}),
    sorts: [{ tenantFacilityGroupId: "ASC" }, { tenantFacilityGroupId: "DESC" }, { name: "DESC" }],
  },
  {
    path: "/api/pickjobs/search",
    key: "pickJobs",
    query: () => ({ facilityRef: { eq: facilityId } }),
    sorts: [{ created: "ASC" }, { created: "DESC" }, { tenantOrderId: "ASC" }, { tenantOrderId: "DESC" }],
  },
  {
    path: "/api/audits/search",
    key: "audits",
    query: () => ({ entityType: { eq: "CATEGORY" } }),
    sorts: [{ created: "ASC" }, { created: "DESC" }],
  },
  {
    path: "/api/notifications/search",
    key: "notifications",
    query: () => ({ facilityRef: { eq: facilityId } }),
    sorts: [{ created: "ASC" }, { created: "DESC" }, { status: "DESC" }],
  },
];

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("pager"));
  other = sys.as(await sys.token("pager-other"));
  const ok = (res: { status: number; text: string }, status = 201) =>
    expect(res.status, res.text).toBe(status);
  ok(
    await api("PUT", "/api/configurations/notifications", {
      channels: [{ type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] }],
    }),
  );
  const facility = await api("POST", "/api/facilities", { name: "Store", address: facilityAddress });
  ok(facility);
  facilityId = facility.body.id;
  for (let i = 0; i < N; i++) {
    // Names repeat, so the id breaks ties.
    ok(
      await api("POST", "/api/categories", {
        tenantCategoryId: `PAGED_${i}`,
        nameLocalized: { en_US: `Name ${i % 2}` },
      }),
    );
    ok(
      await api("POST", "/api/facilitygroups", {
        tenantFacilityGroupId: `G-${i}`,
        nameLocalized: { en_US: `Group ${i % 3}` },
        facilityRefs: [facilityId],
      }),
    );
    ok(await api("POST", "/api/pickjobs", pickJobBody(facilityId, { tenantOrderId: `R-${i % 2}` })));
  }
  const otherCategory = await other("POST", "/api/categories", { nameLocalized: { en_US: "Theirs" } });
  ok(otherCategory);
  otherCategoryId = otherCategory.body.id;
  // Audits and notifications come from the event stream.
  for (const e of endpoints) {
    await eventually(async () => {
      const res = await api("POST", e.path, { query: e.query(), size: 250 });
      return res.status === 200 && res.body[e.key].length === N;
    });
  }
}, 120_000);
afterAll(() => sys?.close());

const ids = (body: Record<string, unknown>, key: string) => (body[key] as { id: string }[]).map((x) => x.id);

describe.each(endpoints)("$path startAfterId", (e) => {
  const search = async (body: Record<string, unknown>) => {
    const res = await api("POST", e.path, { query: e.query(), ...body });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };

  it.each(e.sorts.map((s) => [JSON.stringify(s), s] as const))(
    "pages after the named entity in the order %s, to an empty last page",
    async (_, sort) => {
      const all = ids(await search({ sort: [sort], size: 250 }), e.key);
      expect(all).toHaveLength(N);
      const got: string[] = [];
      let startAfterId: string | undefined;
      for (let guard = 0; guard <= N; guard++) {
        const page = await search({ sort: [sort], size: 2, ...(startAfterId ? { startAfterId } : {}) });
        const pageIds = ids(page, e.key);
        expect(page.pageInfo.hasPreviousPage).toBe(startAfterId !== undefined);
        if (pageIds.length === 0) break;
        got.push(...pageIds);
        startAfterId = pageIds.at(-1);
      }
      // Page 2 is not page 1 again: every entity once, in the order of the full list.
      expect(got).toEqual(all);
      // The default order (by id) too.
      const byId = ids(await search({ size: 250 }), e.key);
      expect(ids(await search({ startAfterId: byId[1] }), e.key)).toEqual(byId.slice(2));
    },
  );

  it("an unknown id and another tenant's are the same 400 naming startAfterId", async () => {
    const answers = [];
    for (const startAfterId of ["018f2b6e-0000-7000-8000-000000000000", otherCategoryId]) {
      const res = await api("POST", e.path, { query: e.query(), startAfterId });
      expect(res.status, res.text).toBe(400);
      expect(res.body[0].code).toBe("UNKNOWN_START_AFTER_ID");
      expect(res.body[0].description).toContain("startAfterId");
      answers.push(res.body);
    }
    expect(answers[0]).toEqual(answers[1]);
  });

  it("is forward paging: with after, before or last it is a 400 naming startAfterId", async () => {
    const first = await search({ size: 1 });
    const [id] = ids(first, e.key);
    for (const extra of [
      { after: first.pageInfo.endCursor },
      { before: first.pageInfo.startCursor },
      { last: 2 },
    ]) {
      const res = await api("POST", e.path, { query: e.query(), startAfterId: id, ...extra });
      expect(res.status, res.text).toBe(400);
      expect(res.body[0].description).toContain("startAfterId");
    }
  });
});
