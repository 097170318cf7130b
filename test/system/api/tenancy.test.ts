/** Tenant isolation: tenant B cannot see or touch tenant A's data by any path. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let a: ReturnType<System["as"]>;
let b: ReturnType<System["as"]>;
let category: { id: string };
let facility: { id: string };

beforeAll(async () => {
  sys = await startSystem();
  a = sys.as(await sys.token("tenant-a"));
  b = sys.as(await sys.token("tenant-b"));
  category = (
    await a("POST", "/api/categories", { tenantCategoryId: "SECRET", nameLocalized: { en_US: "Secret" } })
  ).body;
  facility = (
    await a("POST", "/api/facilities", {
      name: "A's store",
      tenantFacilityId: "A-STORE",
      address: {
        companyName: "A",
        street: "Main",
        houseNumber: "1",
        postalCode: "12345",
        city: "Town",
        country: "DE",
      },
    })
  ).body;
});
afterAll(() => sys?.close());

describe("tenant B", () => {
  it("cannot read A's category by id or URN", async () => {
    expect((await b("GET", `/api/categories/${category.id}`)).status).toBe(404);
    expect((await b("GET", "/api/categories/urn:fft:category:tenantCategoryId:SECRET")).status).toBe(404);
  });

  it("cannot change or delete it", async () => {
    expect(
      (await b("PUT", `/api/categories/${category.id}`, { version: 1, nameLocalized: { en_US: "pwned" } }))
        .status,
    ).toBe(404);
    expect((await b("DELETE", `/api/categories/${category.id}`)).status).toBe(404);
    expect((await a("GET", `/api/categories/${category.id}`)).body).toMatchObject({
      version: 1,
      nameLocalized: { en_US: "Secret" },
    });
  });

  it("does not see it in lists or searches", async () => {
    expect((await b("GET", "/api/categories")).body).toEqual([]);
    const s = await b("POST", "/api/categories/search", {
      query: { id: { eq: category.id } },
      options: { withTotal: true },
    });
    expect(s.body).toMatchObject({ categories: [], total: 0 });
    const all = await b("POST", "/api/categories/search", {
      query: { or: [{ tenantCategoryId: { like: ".*" } }, { name: { like: ".*" } }] },
    });
    expect(all.body.categories).toEqual([]);
  });

  it("may use the same tenant identifiers independently", async () => {
    const mine = await b("POST", "/api/categories", {
      tenantCategoryId: "SECRET",
      nameLocalized: { en_US: "B's own" },
    });
    expect(mine.status).toBe(201);
    expect((await b("GET", "/api/categories/urn:fft:category:tenantCategoryId:SECRET")).body.id).toBe(
      mine.body.id,
    );
    expect((await a("GET", "/api/categories/urn:fft:category:tenantCategoryId:SECRET")).body.id).toBe(
      category.id,
    );
  });

  it("cannot reach A's facility by id, URN, list, change or delete", async () => {
    expect((await b("GET", `/api/facilities/${facility.id}`)).status).toBe(404);
    expect((await b("GET", "/api/facilities/urn:fft:facility:tenantFacilityId:A-STORE")).status).toBe(404);
    expect((await b("GET", "/api/facilities")).body).toEqual({ facilities: [], total: 0 });
    expect(
      (
        await b("PATCH", `/api/facilities/${facility.id}`, {
          type: "MANAGED_FACILITY",
          version: 1,
          name: "x",
        })
      ).status,
    ).toBe(404);
    expect((await b("DELETE", `/api/facilities/${facility.id}`)).status).toBe(404);
    expect((await a("GET", `/api/facilities/${facility.id}`)).body).toMatchObject({
      name: "A's store",
      version: 1,
    });
  });

  it("cannot page into A's data with A's ids as startAfterId", async () => {
    expect((await b("GET", `/api/categories?startAfterId=${category.id}`)).status).toBe(200);
    expect(
      (await b("GET", `/api/categories?startAfterId=${category.id}`)).body.every(
        (c: any) => c.nameLocalized.en_US !== "Secret",
      ),
    ).toBe(true);
  });
});
