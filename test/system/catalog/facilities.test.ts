/** The facility registry through the gateway: create, read (id/URN), list, modify (both PATCH forms), replace (PUT), delete. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type System, startSystem } from "../../support/system.ts";

let sys: System;
let api: ReturnType<System["as"]>;

const address = {
  companyName: "Speedy Boxales Ltd.",
  street: "Hauptstr.",
  houseNumber: "42a",
  postalCode: "40764",
  city: "Langenfeld",
  country: "DE",
  phoneNumbers: [{ value: "+49 2173 123", type: "PHONE", label: "front desk" }],
  emailAddresses: [{ value: "store@example.com", recipient: "Store team" }],
  resolvedTimeZone: { timeZoneId: "Europe/Berlin" },
};

beforeAll(async () => {
  sys = await startSystem();
  api = sys.as(await sys.token("acme"));
});
afterAll(() => sys?.close());

describe("facilities", () => {
  it("creates a managed facility with defaults and reads it by id and URN", async () => {
    const res = await api("POST", "/api/facilities", {
      name: "Hamburg NW2",
      tenantFacilityId: "K12345",
      address,
      customAttributes: { region: "north" },
      pickingMethods: ["SINGLE_ORDER", "BATCH"],
      fulfillmentProcessBuffer: 240,
      contact: { firstName: "Ada", lastName: "Lovelace", roleDescription: "Manager" },
      services: [{ type: "PICKUP" }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Hamburg NW2",
      tenantFacilityId: "K12345",
      type: "MANAGED_FACILITY",
      status: "ONLINE",
      locationType: "STORE",
      version: 1,
      customAttributes: { region: "north" },
      pickingMethods: ["SINGLE_ORDER", "BATCH"],
      fulfillmentProcessBuffer: 240,
      contact: { firstName: "Ada", lastName: "Lovelace", roleDescription: "Manager" },
      services: [{ type: "PICKUP" }],
      address: {
        ...address,
        resolvedTimeZone: {
          timeZoneId: "Europe/Berlin",
          timeZoneName: "Central European Standard Time",
          offsetInSeconds: 3600,
          source: "IANA",
        },
      },
    });
    expect(res.headers.get("location")).toBe(`/api/facilities/${res.body.id}`);
    expect((await api("GET", `/api/facilities/${res.body.id}`)).body).toEqual(res.body);
    expect((await api("GET", "/api/facilities/urn:fft:facility:tenantFacilityId:K12345")).body).toEqual(
      res.body,
    );
  });

  it("creates a supplier without an address", async () => {
    const res = await api("POST", "/api/facilities", { name: "Supplier Inc", type: "SUPPLIER" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: "SUPPLIER", status: "ONLINE" });
    expect(res.body.address).toBeUndefined();
  });

  it("rejects invalid facilities", async () => {
    for (const [body, status] of [
      [{ name: "No address" }, 400],
      [{ name: "Bad country", address: { ...address, country: "Germany" } }, 400],
      [{ address }, 400],
      [{ name: "Bad status", address, status: "CLOSED" }, 400],
      [{ name: "Bad services", address, services: [{ type: "PICKUP", extra: 1 }] }, 400],
      [{ name: "Bad tz", address: { ...address, resolvedTimeZone: { timeZoneId: "Nowhere/Land" } } }, 400],
    ] as const) {
      const res = await api("POST", "/api/facilities", body);
      expect(res.status, JSON.stringify(body)).toBe(status);
    }
  });

  it("keeps tenantFacilityId unique per tenant", async () => {
    expect(
      (await api("POST", "/api/facilities", { name: "A", tenantFacilityId: "UNIQ", address })).status,
    ).toBe(201);
    const dup = await api("POST", "/api/facilities", { name: "B", tenantFacilityId: "UNIQ", address });
    expect(dup.status).toBe(409);
    expect(dup.body[0].code).toBe("TENANT_FACILITY_ID_TAKEN");
  });

  it("modifies with ManagedFacilityForModification: named fields change, null clears, extra properties are rejected", async () => {
    const f = (
      await api("POST", "/api/facilities", {
        name: "Mod",
        tenantFacilityId: "MOD",
        address,
        customAttributes: { a: 1 },
        fulfillmentProcessBuffer: 10,
      })
    ).body;
    const patched = await api("PATCH", `/api/facilities/${f.id}`, {
      type: "MANAGED_FACILITY",
      version: 1,
      name: "Modified",
      status: "SUSPENDED",
      customAttributes: null,
      fulfillmentProcessBuffer: null,
      locationType: "WAREHOUSE",
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: "Modified",
      status: "SUSPENDED",
      version: 2,
      locationType: "WAREHOUSE",
      tenantFacilityId: "MOD",
    });
    expect(patched.body.customAttributes).toBeUndefined();
    expect(patched.body.fulfillmentProcessBuffer).toBeUndefined();
    expect(patched.body.address).toMatchObject({ street: "Hauptstr." });

    const extra = await api("PATCH", `/api/facilities/${f.id}`, {
      type: "MANAGED_FACILITY",
      version: 2,
      name: "x",
      color: "red",
    });
    expect(extra.status).toBe(400);
    const missingVersion = await api("PATCH", `/api/facilities/${f.id}`, {
      type: "MANAGED_FACILITY",
      name: "x",
    });
    expect(missingVersion.status).toBe(400);
    const stale = await api("PATCH", `/api/facilities/${f.id}`, {
      type: "MANAGED_FACILITY",
      version: 1,
      name: "x",
    });
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
  });

  it("modifies with the deprecated actions form, also by URN", async () => {
    await api("POST", "/api/facilities", { name: "Act", tenantFacilityId: "ACT", address });
    const res = await api("PATCH", "/api/facilities/urn:fft:facility:tenantFacilityId:ACT", {
      version: 1,
      actions: [
        { action: "ModifyFacility", name: "Acted" },
        { action: "ModifyFacility", status: "OFFLINE" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Acted", status: "OFFLINE", version: 2 });
    const bad = await api("PATCH", "/api/facilities/urn:fft:facility:tenantFacilityId:ACT", {
      version: 2,
      actions: [{ action: "ModifyCarrier" }],
    });
    expect(bad.status).toBe(400);
  });

  it("replaces with PUT: every field from the body, what it leaves out removed, FACILITY_UPDATED audited", async () => {
    const f = (
      await api("POST", "/api/facilities", {
        name: "Put",
        tenantFacilityId: "PUT",
        address,
        customAttributes: { a: 1 },
        contact: { firstName: "Ada", lastName: "Lovelace" },
        pickingMethods: ["SINGLE_ORDER"],
      })
    ).body;
    const replacement = {
      type: "MANAGED_FACILITY",
      version: 1,
      name: "Replaced",
      status: "SUSPENDED",
      locationType: "WAREHOUSE",
      address: {
        companyName: "New Co",
        street: "Ring",
        houseNumber: "1",
        postalCode: "10115",
        city: "Berlin",
        country: "DE",
      },
      fulfillmentProcessBuffer: 120,
      capacityEnabled: true,
    };
    const put = await api("PUT", "/api/facilities/urn:fft:facility:tenantFacilityId:PUT", replacement);
    expect(put.status).toBe(200);
    const { version: _v, ...fields } = replacement;
    expect(put.body).toEqual({
      ...fields,
      id: f.id,
      version: 2,
      created: f.created,
      lastModified: expect.any(String),
    });
    expect((await api("GET", `/api/facilities/${f.id}`)).body).toEqual(put.body);
    // Left out: tenantFacilityId, customAttributes, contact, pickingMethods are gone; the URN with them.
    expect((await api("GET", "/api/facilities/urn:fft:facility:tenantFacilityId:PUT")).status).toBe(404);

    const audits = await eventually(async () => {
      const res = await api("POST", "/api/audits/search", {
        query: { entityRef: { eq: f.id } },
        sort: [{ created: "ASC" }],
      });
      return res.body.audits?.length >= 2 ? res.body.audits : undefined;
    });
    expect(audits.map((a: any) => [a.operation.name, a.entityVersion])).toEqual([
      ["FACILITY_CREATED", 1],
      ["FACILITY_UPDATED", 2],
    ]);

    const supplier = (await api("POST", "/api/facilities", { name: "Sup", type: "SUPPLIER" })).body;
    const supplierPut = await api("PUT", `/api/facilities/${supplier.id}`, {
      type: "SUPPLIER",
      version: 1,
      name: "Supplier 2",
      status: "OFFLINE",
      tenantFacilityId: "SUP-2",
      address: { companyName: "Sup", country: "NL" },
    });
    expect(supplierPut.status).toBe(200);
    expect(supplierPut.body).toMatchObject({
      type: "SUPPLIER",
      name: "Supplier 2",
      status: "OFFLINE",
      tenantFacilityId: "SUP-2",
      address: { companyName: "Sup", country: "NL" },
      version: 2,
    });
  });

  it("PUT: 409 when stale, 400 naming the field, 404 unknown, other tenants and missing permission refused", async () => {
    const f = (await api("POST", "/api/facilities", { name: "Put2", tenantFacilityId: "PUT2", address }))
      .body;
    const body = {
      type: "MANAGED_FACILITY",
      version: 1,
      name: "Put2",
      status: "ONLINE",
      locationType: "STORE",
      address,
      fulfillmentProcessBuffer: 240,
      capacityEnabled: false,
    };
    expect((await api("PUT", `/api/facilities/${f.id}`, body)).status).toBe(200);
    const stale = await api("PUT", `/api/facilities/${f.id}`, body);
    expect(stale.status).toBe(409);
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });

    const { capacityEnabled: _c, ...withoutCapacity } = body;
    for (const [bad, field] of [
      [{ ...withoutCapacity, version: 2 }, "capacityEnabled"],
      [{ ...body, version: 2, color: "red" }, "color"],
      [{ ...body, version: 2, status: "CLOSED" }, "status"],
      [{ ...body, version: 2, address: { ...address, street: undefined } }, "street"],
      [{ ...body, version: 2, type: "WAREHOUSE" }, "type"],
      [{ ...body, version: "2" }, "version"],
    ] as const) {
      const res = await api("PUT", `/api/facilities/${f.id}`, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(res.body), JSON.stringify(bad)).toContain(field);
    }
    expect((await api("GET", `/api/facilities/${f.id}`)).body.version).toBe(2);

    const unknown = "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f";
    expect((await api("PUT", `/api/facilities/${unknown}`, { ...body, version: 2 })).status).toBe(404);
    expect(
      (await api("PUT", "/api/facilities/urn:fft:facility:tenantFacilityId:NOPE", { ...body, version: 2 }))
        .status,
    ).toBe(404);

    const other = sys.as(await sys.token("globex"));
    expect((await other("PUT", `/api/facilities/${f.id}`, { ...body, version: 2 })).status).toBe(404);
    const reader = sys.as(await sys.token("acme", { roles: ["VIEWER"] }));
    const refused = await reader("PUT", `/api/facilities/${f.id}`, { ...body, version: 2 });
    expect(refused.status).toBe(403);
    expect((await api("GET", `/api/facilities/${f.id}`)).body).toMatchObject({ version: 2, name: "Put2" });
  });

  it("lists with filters, order and paging, address fields flattened, with the total", async () => {
    const s = await startSystem();
    try {
      const a = s.as(await s.token("lister"));
      const made = [];
      for (const [name, status, postalCode] of [
        ["Delta", "ONLINE", "30000"],
        ["Alpha", "OFFLINE", "10000"],
        ["Charlie", "ONLINE", "20000"],
        ["Bravo", "SUSPENDED", "40000"],
      ] as const) {
        made.push(
          (await a("POST", "/api/facilities", { name, status, address: { ...address, postalCode } })).body,
        );
      }
      await a("POST", "/api/facilities", { name: "Echo Supplier", type: "SUPPLIER" });
      const list = await a("GET", "/api/facilities?size=2");
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(5);
      expect(list.body.facilities.map((f: any) => f.name)).toEqual(["Delta", "Alpha"]);
      expect(list.body.facilities[0]).toMatchObject({
        id: made[0].id,
        street: "Hauptstr.",
        postalCode: "30000",
        city: "Langenfeld",
        status: "ONLINE",
        type: "MANAGED_FACILITY",
        version: 1,
      });
      expect(list.body.facilities[0].address).toBeUndefined();

      const next = await a("GET", `/api/facilities?size=2&startAfterId=${made[1].id}`);
      expect(next.body.facilities.map((f: any) => f.name)).toEqual(["Charlie", "Bravo"]);

      const online = await a("GET", "/api/facilities?status=ONLINE&status=SUSPENDED");
      expect(online.body.facilities.map((f: any) => f.name)).toEqual([
        "Delta",
        "Charlie",
        "Bravo",
        "Echo Supplier",
      ]);
      expect(online.body.total).toBe(4);
      expect((await a("GET", "/api/facilities?status=OFFLINE")).body).toMatchObject({
        total: 1,
        facilities: [{ name: "Alpha" }],
      });
      expect(
        (await a("GET", "/api/facilities?type=SUPPLIER")).body.facilities.map((f: any) => f.name),
      ).toEqual(["Echo Supplier"]);

      const byName = await a("GET", "/api/facilities?orderBy=NAME&size=2");
      expect(byName.body.facilities.map((f: any) => f.name)).toEqual(["Alpha", "Bravo"]);
      const byName2 = await a(
        "GET",
        `/api/facilities?orderBy=NAME&size=10&startAfterId=${byName.body.facilities[1].id}`,
      );
      expect(byName2.body.facilities.map((f: any) => f.name)).toEqual(["Charlie", "Delta", "Echo Supplier"]);
      const byZip = await a("GET", "/api/facilities?orderBy=POSTAL_CODE_ASC");
      expect(byZip.body.facilities.map((f: any) => f.name)).toEqual([
        "Alpha",
        "Charlie",
        "Delta",
        "Bravo",
        "Echo Supplier",
      ]);
      const afterLastZip = await a(
        "GET",
        `/api/facilities?orderBy=POSTAL_CODE_ASC&startAfterId=${made[3].id}`,
      );
      expect(afterLastZip.body.facilities.map((f: any) => f.name)).toEqual(["Echo Supplier"]);

      expect((await a("GET", "/api/facilities?status=CLOSED")).status).toBe(400);
      expect((await a("GET", "/api/facilities?orderBy=COLOR")).status).toBe(400);
      expect((await a("GET", "/api/facilities?size=501")).status).toBe(400);
    } finally {
      await s.close();
    }
  });

  it("deletes", async () => {
    const f = (await api("POST", "/api/facilities", { name: "Gone", tenantFacilityId: "GONE", address }))
      .body;
    const del = await api("DELETE", "/api/facilities/urn:fft:facility:tenantFacilityId:GONE");
    expect(del.status).toBe(200);
    expect(del.text).toBe("");
    expect((await api("GET", `/api/facilities/${f.id}`)).status).toBe(404);
    expect((await api("DELETE", `/api/facilities/${f.id}`)).status).toBe(404);
  });
});
