/**
 * Facility groups through the gateway: create / get (also by URN) / list / search / PATCH / DELETE
 * and the four facility actions, versions, every limit at and over the edge (also under 10
 * concurrent adds: the 1000-facilities and 20-groups quotas stay exact), versionless concurrency,
 * a deleted facility leaving its groups, tenancy, the audit trail and conformance.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;
let other: ReturnType<System["as"]>;
let facilities: string[];

const UNKNOWN = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
const GROUPS = "/api/facilitygroups";
let seq = 0;

const conformant = (schema: string, value: unknown) => {
  if (!referenceMissing) expect(referenceErrors(schema, value), JSON.stringify(value)).toEqual([]);
};

async function newFacilities(n: number, as = api): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, n - i) }, (_, j) =>
        as("POST", "/api/facilities", { name: `F${i + j}`, address: facilityAddress }),
      ),
    );
    for (const res of batch) {
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
    }
  }
  return ids;
}

const body = (refs: string[], extra: Record<string, unknown> = {}) => ({
  tenantFacilityGroupId: `G-${++seq}`,
  nameLocalized: { de_DE: `Gruppe ${seq}`, en_US: `Group ${seq}` },
  facilityRefs: refs,
  ...extra,
});
async function createGroup(refs: string[], extra: Record<string, unknown> = {}, as = api) {
  const res = await as("POST", GROUPS, body(refs, extra));
  expect(res.status, res.text).toBe(201);
  return res.body as Record<string, any>;
}
const action = (id: string, a: Record<string, unknown>, as = api) => as("POST", `${GROUPS}/${id}/actions`, a);

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme", { user: "grace.groups" }));
  other = sys.as(await sys.token("globex"));
  facilities = await newFacilities(6);
});
afterAll(() => sys?.close());

describe("facility group CRUD", () => {
  it("creates (201, Location), reads by id and URN, lists, audits", async () => {
    const res = await api(
      "POST",
      GROUPS,
      body(facilities.slice(0, 2), { customAttributes: { region: "N" } }),
    );
    expect(res.status, res.text).toBe(201);
    conformant("FacilityGroup", res.body);
    const g = res.body;
    expect(g).toMatchObject({
      id: expect.any(String),
      version: 1,
      facilityRefs: facilities.slice(0, 2),
      facilityCount: 2,
      name: expect.stringMatching(/^Group /),
      customAttributes: { region: "N" },
    });
    expect(res.headers.get("location")).toMatch(new RegExp(`/api/facilitygroups/${g.id}$`));
    expect((await api("GET", `${GROUPS}/${g.id}`)).body).toEqual(g);
    const byUrn = await api(
      "GET",
      `${GROUPS}/urn:fft:facilitygroup:tenantFacilityGroupId:${g.tenantFacilityGroupId}`,
    );
    expect(byUrn.status, byUrn.text).toBe(200);
    expect(byUrn.body.id).toBe(g.id);

    const list = await api("GET", `${GROUPS}?tenantFacilityGroupId=${g.tenantFacilityGroupId}`);
    expect(list.status).toBe(200);
    conformant("FacilityGroups", list.body);
    expect(list.body).toEqual({ facilityGroups: [g], total: 1 });

    const audits = await eventually(async () => {
      const found = await api("POST", "/api/audits/search", { query: { entityRef: { eq: g.id } } });
      return found.body.audits?.length ? (found.body.audits as any[]) : undefined;
    });
    expect(audits.map((a) => [a.entityType, a.operation.name])).toEqual([
      ["FACILITY_GROUP", "FACILITY_GROUP_CREATED"],
    ]);
  });

  it("pages the list by id with total", async () => {
    const tenant = sys.as(await sys.token("paging"));
    const [f] = await newFacilities(1, tenant);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createGroup([f as string], {}, tenant)).id);
    const first = await tenant("GET", `${GROUPS}?size=2`);
    expect(first.body.facilityGroups.map((g: any) => g.id)).toEqual(ids.slice(0, 2));
    expect(first.body.total).toBe(3);
    const next = await tenant("GET", `${GROUPS}?size=2&startAfterId=${ids[1]}`);
    expect(next.body.facilityGroups.map((g: any) => g.id)).toEqual(ids.slice(2));
  });

  it("400 per missing field and bad input, naming the field; nothing stored", async () => {
    const tenant = sys.as(await sys.token("bad-input"));
    const [f] = await newFacilities(1, tenant);
    const ok = body([f as string]);
    const { tenantFacilityGroupId: _t, ...noId } = ok;
    const { nameLocalized: _n, ...noName } = ok;
    const { facilityRefs: _f, ...noRefs } = ok;
    const cases: [string, Record<string, unknown>][] = [
      ["tenantFacilityGroupId", noId],
      ["nameLocalized", noName],
      ["facilityRefs", noRefs],
      ["nameLocalized", { ...ok, nameLocalized: {} }],
      ["tenantFacilityGroupId", { ...ok, tenantFacilityGroupId: "a b" }],
      ["facilityRefs", { ...ok, facilityRefs: [f, f] }],
      ["facilityRefs/0", { ...ok, facilityRefs: [UNKNOWN] }],
      ["facilityRefs/0", { ...ok, facilityRefs: ["not-a-facility"] }],
      ["facilityRefs/0", { ...ok, facilityRefs: [facilities[0]] }], // another tenant's
    ];
    for (const [field, b] of cases) {
      const res = await tenant("POST", GROUPS, b);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), `${field}: ${res.text}`).toContain(field);
    }
    expect((await tenant("GET", GROUPS)).body.total).toBe(0);
  });

  it("409 for a taken tenantFacilityGroupId (another tenant may use it)", async () => {
    const g = await createGroup([]);
    const again = await api("POST", GROUPS, { ...body([]), tenantFacilityGroupId: g.tenantFacilityGroupId });
    expect(again.status, again.text).toBe(409);
    const theirs = await other("POST", GROUPS, {
      ...body([]),
      tenantFacilityGroupId: g.tenantFacilityGroupId,
    });
    expect(theirs.status, theirs.text).toBe(201);
  });

  it("PATCH replaces on the current version (409 when stale); left-out facilityRefs and customAttributes go", async () => {
    const g = await createGroup(facilities.slice(0, 2), { customAttributes: { a: 1 } });
    const stale = await api("PATCH", `${GROUPS}/${g.id}`, { version: 5, facilityRefs: [] });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 5, version: 1 });
    const noVersion = await api("PATCH", `${GROUPS}/${g.id}`, { facilityRefs: [] });
    expect(noVersion.status).toBe(400);
    const res = await api("PATCH", `${GROUPS}/${g.id}`, {
      version: 1,
      nameLocalized: { en_US: "Renamed" },
      facilityRefs: [facilities[2]],
    });
    expect(res.status, res.text).toBe(200);
    conformant("FacilityGroup", res.body);
    expect(res.body).toMatchObject({
      version: 2,
      name: "Renamed",
      tenantFacilityGroupId: g.tenantFacilityGroupId,
      facilityRefs: [facilities[2]],
      facilityCount: 1,
    });
    expect(res.body.customAttributes).toBeUndefined();
    const unknownFacility = await api("PATCH", `${GROUPS}/${g.id}`, { version: 2, facilityRefs: [UNKNOWN] });
    expect(unknownFacility.status).toBe(400);
    expect((await api("GET", `${GROUPS}/${g.id}`)).body.version).toBe(2);
  });

  it("DELETE answers 200 without a body, then 404; 404 for unknown ids and URNs", async () => {
    const g = await createGroup([]);
    const del = await api("DELETE", `${GROUPS}/${g.id}`);
    expect(del.status).toBe(200);
    expect(del.text).toBe("");
    for (const path of [
      `${GROUPS}/${g.id}`,
      `${GROUPS}/${UNKNOWN}`,
      `${GROUPS}/nope`,
      `${GROUPS}/urn:fft:facilitygroup:tenantFacilityGroupId:${g.tenantFacilityGroupId}`,
    ]) {
      expect((await api("GET", path)).status, path).toBe(404);
    }
    expect((await api("DELETE", `${GROUPS}/${g.id}`)).status).toBe(404);
    expect((await api("PATCH", `${GROUPS}/${UNKNOWN}`, { version: 1 })).status).toBe(404);
    expect(
      (
        await action(UNKNOWN, {
          name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP",
          facilitiesToAdd: [facilities[0]],
        })
      ).status,
    ).toBe(404);
  });

  it("another tenant sees, lists, searches and changes nothing", async () => {
    const g = await createGroup([facilities[0] as string]);
    expect((await other("GET", `${GROUPS}/${g.id}`)).status).toBe(404);
    expect((await other("PATCH", `${GROUPS}/${g.id}`, { version: 1 })).status).toBe(404);
    expect((await other("DELETE", `${GROUPS}/${g.id}`)).status).toBe(404);
    expect(
      (
        await action(
          g.id,
          { name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: [facilities[0]] },
          other,
        )
      ).status,
    ).toBe(404);
    const list = (await other("GET", GROUPS)).body.facilityGroups.map((x: any) => x.id);
    expect(list).not.toContain(g.id);
    const found = await other("POST", `${GROUPS}/search`, { query: { id: { eq: g.id } } });
    expect(found.body.facilityGroups).toEqual([]);
    expect((await api("GET", `${GROUPS}/${g.id}`)).body).toEqual(g);
  });

  it("a group that is not the caller's is a 404 before any facility the body names is checked", async () => {
    const g = await createGroup([facilities[0] as string]);
    const [theirs] = await newFacilities(1, other);
    const unknownGroup = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e30";
    for (const id of [g.id, `urn:fft:facilitygroup:tenantFacilityGroupId:${g.tenantFacilityGroupId}`]) {
      // Another tenant naming A's facility (not one of its own), or its own: the group is the 404.
      for (const ref of [facilities[1], theirs, UNKNOWN]) {
        for (const name of ["ADD_FACILITIES_TO_GROUP", "VERSIONLESS_ADD_FACILITIES_TO_GROUP"]) {
          const res = await action(id, { name, facilitiesToAdd: [ref], version: 1 }, other);
          expect(res.status, `${name} ${ref} on ${id}: ${res.text}`).toBe(404);
        }
        const patch = await other("PATCH", `${GROUPS}/${id}`, {
          version: 1,
          nameLocalized: { en_US: "theirs" },
          facilityRefs: [ref],
        });
        expect(patch.status, `PATCH ${ref} on ${id}: ${patch.text}`).toBe(404);
      }
    }
    // The caller's own unknown group, naming a facility that does not exist: 404 too.
    const res = await action(unknownGroup, { name: "ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [UNKNOWN] });
    expect(res.status, res.text).toBe(404);
    expect(
      (await api("PATCH", `${GROUPS}/${unknownGroup}`, { version: 1, facilityRefs: [UNKNOWN] })).status,
    ).toBe(404);
    expect((await api("GET", `${GROUPS}/${g.id}`)).body).toEqual(g);
  });

  it("needs FACILITY_GROUP_READ / _WRITE", async () => {
    const reader = sys.as(await sys.token("acme", { permissions: ["FACILITY_GROUP_READ"] }));
    expect((await reader("GET", GROUPS)).status).toBe(200);
    expect((await reader("POST", GROUPS, body([]))).status).toBe(403);
    const none = sys.as(await sys.token("acme", { permissions: ["CATEGORY_READ"] }));
    expect((await none("GET", GROUPS)).status).toBe(403);
  });
});

describe("facility group actions", () => {
  it("ADD (version optional) and REMOVE (version required), each also versionless", async () => {
    const g = await createGroup([facilities[0] as string]);
    const add = await action(g.id, {
      name: "ADD_FACILITIES_TO_GROUP",
      facilitiesToAdd: [facilities[1], facilities[0]],
      version: 1,
    });
    expect(add.status, add.text).toBe(200);
    conformant("FacilityGroup", add.body);
    expect(add.body).toMatchObject({
      version: 2,
      facilityRefs: [facilities[0], facilities[1]],
      facilityCount: 2,
    });
    const stale = await action(g.id, {
      name: "ADD_FACILITIES_TO_GROUP",
      facilitiesToAdd: [facilities[2]],
      version: 1,
    });
    expect(stale.status).toBe(409);
    const noVersion = await action(g.id, {
      name: "ADD_FACILITIES_TO_GROUP",
      facilitiesToAdd: [facilities[2]],
    });
    expect(noVersion.body.version).toBe(3);
    const removeNoVersion = await action(g.id, {
      name: "REMOVE_FACILITIES_FROM_GROUP",
      facilitiesToRemove: [facilities[0]],
    });
    expect(removeNoVersion.status).toBe(400);
    const remove = await action(g.id, {
      name: "REMOVE_FACILITIES_FROM_GROUP",
      facilitiesToRemove: [facilities[0]],
      version: 3,
    });
    expect(remove.body).toMatchObject({ version: 4, facilityRefs: [facilities[1], facilities[2]] });
    const versionless = await action(g.id, {
      name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP",
      facilitiesToRemove: [facilities[1], UNKNOWN],
    });
    expect(versionless.body).toMatchObject({ version: 5, facilityRefs: [facilities[2]] });
  });

  it("400 for no facilities, 201, an unknown or foreign facility, an unknown action; nothing changes", async () => {
    const g = await createGroup([]);
    const [theirs] = await newFacilities(1, other);
    const many = Array.from({ length: 201 }, () => UNKNOWN);
    const cases: [string, Record<string, unknown>][] = [
      ["facilitiesToAdd", { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [] }],
      ["facilitiesToAdd", { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: many }],
      ["facilitiesToRemove", { name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: many }],
      ["facilitiesToAdd/0", { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [UNKNOWN] }],
      [
        "facilitiesToAdd/1",
        { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [facilities[0], theirs] },
      ],
      ["name", { name: "MOVE_FACILITIES", facilitiesToAdd: [facilities[0]] }],
    ];
    for (const [field, a] of cases) {
      const res = await action(g.id, a);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(JSON.stringify(res.body), `${field}: ${res.text}`).toContain(field);
    }
    expect((await api("GET", `${GROUPS}/${g.id}`)).body).toMatchObject({ version: 1, facilityRefs: [] });
  });

  it("takes 200 facilities in one action", async () => {
    const tenant = sys.as(await sys.token("two-hundred"));
    const refs = await newFacilities(200, tenant);
    const g = await createGroup([], {}, tenant);
    const res = await action(
      g.id,
      { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: refs },
      tenant,
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.facilityCount).toBe(200);
  });

  it("10 concurrent versionless adds to one group all land", async () => {
    const tenant = sys.as(await sys.token("versionless"));
    const refs = await newFacilities(10, tenant);
    const g = await createGroup([], {}, tenant);
    const results = await Promise.all(
      refs.map((f) =>
        action(g.id, { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [f] }, tenant),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const after = (await tenant("GET", `${GROUPS}/${g.id}`)).body;
    expect(after.version).toBe(11);
    expect([...after.facilityRefs].sort()).toEqual([...refs].sort());
  });

  it("a deleted facility leaves its groups (version moves, FACILITY_GROUP_UPDATED)", async () => {
    const [f, keep] = await newFacilities(2);
    const a = await createGroup([f as string, keep as string]);
    const b = await createGroup([f as string]);
    expect((await api("DELETE", `/api/facilities/${f}`)).status).toBe(200);
    expect((await api("GET", `${GROUPS}/${a.id}`)).body).toMatchObject({
      version: 2,
      facilityRefs: [keep],
      facilityCount: 1,
    });
    expect((await api("GET", `${GROUPS}/${b.id}`)).body).toMatchObject({ version: 2, facilityRefs: [] });
    const audits = await eventually(async () => {
      const found = await api("POST", "/api/audits/search", { query: { entityRef: { eq: a.id } } });
      return found.body.audits?.length >= 2 ? (found.body.audits as any[]) : undefined;
    });
    expect(audits.map((x) => x.operation.name).sort()).toEqual([
      "FACILITY_GROUP_CREATED",
      "FACILITY_GROUP_UPDATED",
    ]);
  });
});

describe("the quotas, exact under concurrency", () => {
  it("a group holds 1000 facilities: at 995, 10 concurrent adds of one new facility each -> exactly 5 land", async () => {
    const tenant = sys.as(await sys.token("thousand"));
    const refs = await newFacilities(1005, tenant);
    const over = await tenant("POST", GROUPS, body(refs.slice(0, 1001)));
    expect(over.status, over.text).toBe(400);
    expect(JSON.stringify(over.body)).toContain("facilityRefs");
    const g = await createGroup(refs.slice(0, 995), {}, tenant);
    const results = await Promise.all(
      refs
        .slice(995)
        .map((f) =>
          action(g.id, { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [f] }, tenant),
        ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(5).fill(400)]);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body[0].description).toMatch(/at most 1000/);
    const after = (await tenant("GET", `${GROUPS}/${g.id}`)).body;
    expect(after.facilityCount).toBe(1000);
    expect(new Set(after.facilityRefs).size).toBe(1000);
  });

  it("a facility is in 20 groups: at 15, 10 concurrent creations and adds naming it -> exactly 5 land", async () => {
    const tenant = sys.as(await sys.token("twenty"));
    const [f] = (await newFacilities(1, tenant)) as [string];
    for (let i = 0; i < 15; i++) await createGroup([f], {}, tenant);
    const empty = await Promise.all(Array.from({ length: 5 }, () => createGroup([], {}, tenant)));
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => tenant("POST", GROUPS, body([f]))),
      ...empty.map((g) => action(g.id, { name: "ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [f] }, tenant)),
    ]);
    const ok = results.filter((r) => r.status === 200 || r.status === 201);
    expect(ok).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 200 && x.status !== 201)) {
      expect(r.status, r.text).toBe(400);
      expect(r.body[0].description).toMatch(/already in 20 facility groups/);
    }
    const holding = await tenant("POST", `${GROUPS}/search`, {
      query: { facilityRefs: { contains: { eq: f } } },
      options: { withTotal: true },
    });
    expect(holding.body.total).toBe(20);
  });
});

describe("search", () => {
  it("by facilityRefs contains, tenantFacilityGroupId, name; sorted by facilityCount; cursors", async () => {
    const tenant = sys.as(await sys.token("search"));
    const refs = await newFacilities(3, tenant);
    const one = await createGroup(refs.slice(0, 1), { nameLocalized: { en_US: "Alpha north" } }, tenant);
    const three = await createGroup(refs, { nameLocalized: { en_US: "Beta" } }, tenant);
    const two = await createGroup(refs.slice(1), { nameLocalized: { en_US: "Gamma north" } }, tenant);
    const search = (payload: Record<string, unknown>) => tenant("POST", `${GROUPS}/search`, payload);

    const containing = await search({ query: { facilityRefs: { contains: { eq: refs[0] } } } });
    expect(containing.status, containing.text).toBe(200);
    conformant("FacilityGroupPaginatedResult", containing.body);
    expect(containing.body.facilityGroups.map((g: any) => g.id).sort()).toEqual([one.id, three.id].sort());
    const byId = await search({ query: { tenantFacilityGroupId: { eq: two.tenantFacilityGroupId } } });
    expect(byId.body.facilityGroups.map((g: any) => g.id)).toEqual([two.id]);
    const byName = await search({ query: { name: { like: "north" } } });
    expect(byName.body.facilityGroups.map((g: any) => g.id).sort()).toEqual([one.id, two.id].sort());

    const sorted = await search({
      query: {},
      sort: [{ facilityCount: "DESC" }],
      size: 2,
      options: { withTotal: true },
    });
    expect(sorted.body.facilityGroups.map((g: any) => g.id)).toEqual([three.id, two.id]);
    expect(sorted.body.total).toBe(3);
    const rest = await search({
      query: {},
      sort: [{ facilityCount: "DESC" }],
      size: 2,
      after: sorted.body.pageInfo.endCursor,
    });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.facilityGroups.map((g: any) => g.id)).toEqual([one.id]);

    for (const bad of [
      { query: { address: { eq: "x" } } },
      { query: {}, sort: [{ created: "ASC" }] },
      { query: {}, size: 251 },
    ]) {
      const res = await search(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
  });
});
