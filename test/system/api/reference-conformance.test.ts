/**
 * Responses validate against the real platform's published schemas (../shared/reference/
 * openapi-subset.yaml): a client written for that platform can read ours unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { facilityAddress } from "../../support/fixtures.ts";
import { referenceErrors, referenceMissing } from "../../support/reference.ts";
import { type System, startSystem } from "../../support/system.ts";

if (referenceMissing) console.warn(referenceMissing);

describe.skipIf(Boolean(referenceMissing))("responses conform to the reference schemas", () => {
  let sys: System;
  let api: ReturnType<System["as"]>;

  beforeAll(async () => {
    sys = await startSystem();
    api = sys.as(await sys.token("conform"));
  });
  afterAll(() => sys?.close());

  const valid = (schema: string, value: unknown) =>
    expect(referenceErrors(schema, value), `${schema}: ${JSON.stringify(value)}`).toEqual([]);

  it("the validator itself rejects documents that do not conform", () => {
    expect(referenceErrors("Category", { id: "x", version: "1", created: "now" })).not.toEqual([]);
    expect(
      referenceErrors("ManagedFacility", {
        id: "x",
        name: "n",
        type: "MANAGED_FACILITY",
        status: "ONLINE",
        version: 1,
      }),
    ).not.toEqual([]);
    expect(referenceErrors("ApiError", [{ description: "no summary" }])).not.toEqual([]);
  });

  it("Category, list of Category, CategoryPaginatedResult", async () => {
    const shapes = [
      { nameLocalized: {} },
      {
        nameLocalized: { en_US: "Tea", de_DE: "Tee" },
        tenantCategoryId: "TEA",
        customAttributes: { a: 1, nested: { b: [true] } },
      },
      { nameLocalized: { fr_FR: "Thé" }, customAttributes: null },
    ];
    for (const body of shapes) {
      const created = await api("POST", "/api/categories", body);
      expect(created.status).toBe(201);
      valid("Category", created.body);
      valid("Category", (await api("GET", `/api/categories/${created.body.id}`)).body);
      const put = await api("PUT", `/api/categories/${created.body.id}`, { ...body, version: 1 });
      valid("Category", put.body);
    }
    const list = await api("GET", "/api/categories");
    for (const c of list.body) valid("Category", c);
    const search = await api("POST", "/api/categories/search", {
      query: {},
      size: 2,
      options: { withTotal: true },
    });
    valid("CategoryPaginatedResult", search.body);
    const empty = await api("POST", "/api/categories/search", {
      query: { tenantCategoryId: { eq: "NONE" } },
    });
    valid("CategoryPaginatedResult", empty.body);
    const deleted = await api("DELETE", `/api/categories/${list.body[0].id}`);
    valid("Category", deleted.body);
  });

  it("ManagedFacility, Supplier, StrippedFacilities", async () => {
    const managed = await api("POST", "/api/facilities", {
      name: "Store",
      tenantFacilityId: "S1",
      address: {
        ...facilityAddress,
        resolvedTimeZone: { timeZoneId: "Europe/Berlin" },
        phoneNumbers: [{ value: "1", type: "MOBILE" }],
      },
      pickingMethods: ["SINGLE_ORDER"],
      services: [{ type: "SHIP_FROM_STORE" }],
      closingDays: [{ date: "2026-12-25T00:00:00.000Z", reason: "Christmas", recurrence: "YEARLY" }],
      contact: { firstName: "A", lastName: "B" },
    });
    expect(managed.status).toBe(201);
    valid("ManagedFacility", managed.body);
    valid("ManagedFacility", (await api("GET", `/api/facilities/${managed.body.id}`)).body);
    const patched = await api("PATCH", `/api/facilities/${managed.body.id}`, {
      type: "MANAGED_FACILITY",
      version: 1,
      status: "SUSPENDED",
    });
    valid("ManagedFacility", patched.body);
    const supplier = await api("POST", "/api/facilities", {
      name: "Supplier",
      type: "SUPPLIER",
      address: { companyName: "Sup", country: "NL" },
    });
    valid("Supplier", supplier.body);
    valid("StrippedFacilities", (await api("GET", "/api/facilities")).body);
  });

  it("ApiError for every error status", async () => {
    const c = (await api("POST", "/api/categories", { nameLocalized: {} })).body;
    await api("PUT", `/api/categories/${c.id}`, { version: 1, nameLocalized: {} });
    const errors = [
      await sys.api("GET", "/api/categories"),
      await sys.as(await sys.token("conform", { permissions: ["CATEGORY_READ"] }))(
        "POST",
        "/api/categories",
        { nameLocalized: {} },
      ),
      await api("GET", "/api/categories/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f"),
      await api("PUT", `/api/categories/${c.id}`, { version: 1, nameLocalized: {} }),
      await api("POST", "/api/categories", { nameLocalized: 1 }),
      await api("POST", "/api/categories", "{"),
    ];
    expect(errors.map((e) => e.status)).toEqual([401, 403, 404, 409, 400, 400]);
    for (const e of errors) valid("ApiError", e.body);
  });

  it("PickingConfigurations: GET (defaults and stored), PATCH (201 and 200), and its errors", async () => {
    const picking = sys.as(await sys.token("conform-picking"));
    const path = "/api/configurations/picking";
    valid("PickingConfigurations", (await picking("GET", path)).body);
    const created = await picking("PATCH", path, {
      version: 0,
      scanningConfiguration: {
        scanningType: "MUST_SCAN_FIRST",
        rolesWithOverwritingScanningPermission: ["SUPERVISOR"],
        scanningRule: { values: [{ priority: 0, scanningRuleType: "LOCATION" }] },
      },
      pickingShortPickConfiguration: {
        confirmationOnShortPick: false,
        shortPickReasons: [{ reasonLocalized: { en_US: "Broken" }, active: true }],
      },
      loadUnitAssignmentConfiguration: { pickJob: "DURING_PICKING", pickRun: "INACTIVE" },
      pickingMethodsConfiguration: { defaultPickingMethod: "BATCH" },
      scheduledPickJobReleaseConfiguration: { openPickJobLeadTimeInMinutes: 30 },
      storageLocationAssignmentConfiguration: { storageLocationRequired: "SOME" },
      takeOverPickJobConfiguration: { active: true },
    });
    expect(created.status, created.text).toBe(201);
    valid("PickingConfigurations", created.body);
    const updated = await picking("PATCH", path, { version: 1, domainStatusConfiguration: {} });
    expect(updated.status, updated.text).toBe(200);
    valid("PickingConfigurations", updated.body);
    valid("PickingConfigurations", (await picking("GET", path)).body);
    const errors = [
      await picking("PATCH", path, { version: 1 }),
      await picking("PATCH", path, { version: 2, nope: true }),
    ];
    expect(errors.map((e) => e.status)).toEqual([409, 400]);
    for (const e of errors) valid("ApiError", e.body);
  });
});
