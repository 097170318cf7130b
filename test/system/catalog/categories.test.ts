/** Categories through the gateway: CRUD, URNs, versions, list paging and every kind of bad input. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
let admin: ReturnType<System["as"]>;

beforeAll(async () => {
  sys = await startSystem();
  admin = sys.as(await sys.token("acme", { roles: ["ADMIN"] }));
});
afterAll(() => sys?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectError(res: { status: number; body: any; headers: Headers }, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(Array.isArray(res.body)).toBe(true);
  expect(res.body[0].summary).toEqual(expect.any(String));
  if (code) expect(res.body[0].code).toBe(code);
  expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/); // never a stack trace
}

describe("category CRUD", () => {
  it("creates, reads (by id and URN), replaces, lists and deletes a category", async () => {
    const created = await admin("POST", "/api/categories", {
      tenantCategoryId: "BEVERAGES",
      nameLocalized: { de_DE: "Getränke", en_US: "Beverages" },
      customAttributes: { shelf: 3 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      tenantCategoryId: "BEVERAGES",
      nameLocalized: { de_DE: "Getränke", en_US: "Beverages" },
      customAttributes: { shelf: 3 },
      version: 1,
    });
    expect(created.body.created).toMatch(ISO);
    expect(created.body.lastModified).toBe(created.body.created);
    expect(created.headers.get("location")).toBe(`/api/categories/${created.body.id}`);
    const id = created.body.id;

    const byId = await admin("GET", `/api/categories/${id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(created.body);

    const byUrn = await admin("GET", "/api/categories/urn:fft:category:tenantCategoryId:BEVERAGES");
    expect(byUrn.status).toBe(200);
    expect(byUrn.body).toEqual(created.body);

    const replaced = await admin("PUT", `/api/categories/${id}`, {
      version: 1,
      nameLocalized: { en_US: "Drinks" },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, version: 2, nameLocalized: { en_US: "Drinks" } });
    expect(replaced.body.tenantCategoryId).toBeUndefined();
    expect(replaced.body.customAttributes).toBeUndefined();
    expect(replaced.body.created).toBe(created.body.created);
    expect(Date.parse(replaced.body.lastModified)).toBeGreaterThanOrEqual(
      Date.parse(created.body.lastModified),
    );

    expect((await admin("GET", `/api/categories/${id}`)).body).toEqual(replaced.body);

    const deleted = await admin("DELETE", `/api/categories/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual(replaced.body);
    expectError(await admin("GET", `/api/categories/${id}`), 404, "CATEGORY_NOT_FOUND");
    expectError(await admin("DELETE", `/api/categories/${id}`), 404);
  });

  it("replaces and deletes by URN", async () => {
    const c = (
      await admin("POST", "/api/categories", { tenantCategoryId: "URN_CAT", nameLocalized: { en_US: "U" } })
    ).body;
    const put = await admin("PUT", "/api/categories/urn:fft:category:tenantCategoryId:URN_CAT", {
      version: 1,
      tenantCategoryId: "URN_CAT",
      nameLocalized: { en_US: "U2" },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: c.id, version: 2 });
    const del = await admin(
      "DELETE",
      "/api/categories/urn:fft:category:tenantCategoryId:URN_CAT?forceDeletion=true",
    );
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(c.id);
  });

  it("answers 409 with both versions on a stale version, and leaves the category unchanged", async () => {
    const c = (await admin("POST", "/api/categories", { nameLocalized: { en_US: "V" } })).body;
    expect(
      (await admin("PUT", `/api/categories/${c.id}`, { version: 1, nameLocalized: { en_US: "V2" } })).status,
    ).toBe(200);
    const stale = await admin("PUT", `/api/categories/${c.id}`, {
      version: 1,
      nameLocalized: { en_US: "V3" },
    });
    expectError(stale, 409, "VERSION_CONFLICT");
    expect(stale.body[0]).toMatchObject({ requestVersion: 1, version: 2 });
    expect((await admin("GET", `/api/categories/${c.id}`)).body).toMatchObject({
      version: 2,
      nameLocalized: { en_US: "V2" },
    });
  });

  it("keeps tenantCategoryId unique per tenant (409)", async () => {
    expect(
      (await admin("POST", "/api/categories", { tenantCategoryId: "DUP", nameLocalized: {} })).status,
    ).toBe(201);
    expectError(
      await admin("POST", "/api/categories", { tenantCategoryId: "DUP", nameLocalized: {} }),
      409,
      "TENANT_CATEGORY_ID_TAKEN",
    );
    const other = (await admin("POST", "/api/categories", { tenantCategoryId: "DUP2", nameLocalized: {} }))
      .body;
    expectError(
      await admin("PUT", `/api/categories/${other.id}`, {
        version: 1,
        tenantCategoryId: "DUP",
        nameLocalized: {},
      }),
      409,
      "TENANT_CATEGORY_ID_TAKEN",
    );
  });

  it("answers 404 for unknown ids and URNs", async () => {
    expectError(await admin("GET", "/api/categories/0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f"), 404);
    expectError(await admin("GET", "/api/categories/not-an-id"), 404);
    expectError(await admin("GET", "/api/categories/urn:fft:category:tenantCategoryId:NOPE"), 404);
    expectError(
      await admin("GET", "/api/categories/urn:fft:facility:tenantFacilityId:X"),
      404,
      "URN_NOT_SUPPORTED",
    );
    expectError(
      await admin("PUT", "/api/categories/urn:fft:category:tenantCategoryId:NOPE", {
        version: 1,
        nameLocalized: {},
      }),
      404,
    );
    expectError(await admin("GET", "/api/nothing-here"), 404, "ROUTE_NOT_FOUND");
  });

  it("rejects a body id that names another category", async () => {
    const c = (await admin("POST", "/api/categories", { nameLocalized: {} })).body;
    expectError(
      await admin("PUT", `/api/categories/${c.id}`, {
        id: "0190d6e8-8c3a-7f1b-9d2e-4a6b8c0d1e2f",
        version: 1,
        nameLocalized: {},
      }),
      400,
      "ID_MISMATCH",
    );
  });
});

describe("category input validation (400)", () => {
  it.each([
    [
      "a tenantCategoryId that breaks the pattern",
      { tenantCategoryId: "no spaces!", nameLocalized: {} },
      /tenantCategoryId/,
    ],
    ["a too short tenantCategoryId", { tenantCategoryId: "A", nameLocalized: {} }, /tenantCategoryId/],
    ["missing nameLocalized", { tenantCategoryId: "OK_ID" }, /nameLocalized/],
    ["nameLocalized of the wrong type", { nameLocalized: "Tea" }, /nameLocalized/],
    ["a localized name that is not a string", { nameLocalized: { en_US: 5 } }, /nameLocalized/],
    [
      "customAttributes of the wrong type",
      { nameLocalized: {}, customAttributes: [1, 2] },
      /customAttributes/,
    ],
    ["a locale key that is no locale", { nameLocalized: { "not a locale": "x" } }, /locale/],
    [
      "a custom attribute key with a dot",
      { nameLocalized: {}, customAttributes: { "a.b": 1 } },
      /customAttributes/,
    ],
  ])("rejects %s", async (_name, body, mentions) => {
    const res = await admin("POST", "/api/categories", body);
    expectError(res, 400);
    expect(res.body[0].description).toMatch(mentions);
  });

  it("rejects malformed JSON", async () => {
    expectError(await admin("POST", "/api/categories", '{"nameLocalized": {'), 400, "MALFORMED_JSON");
  });

  it("rejects a version of the wrong type", async () => {
    const c = (await admin("POST", "/api/categories", { nameLocalized: {} })).body;
    expectError(
      await admin("PUT", `/api/categories/${c.id}`, { version: "1", nameLocalized: {} }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await admin("PUT", `/api/categories/${c.id}`, { version: -1, nameLocalized: {} }),
      400,
      "VALIDATION_FAILED",
    );
    expectError(
      await admin("PUT", `/api/categories/${c.id}`, { nameLocalized: {} }),
      400,
      "VALIDATION_FAILED",
    );
  });

  it.each([
    ["size above 500", "?size=501"],
    ["size 0", "?size=0"],
    ["a size that is no number", "?size=ten"],
    ["a startAfterId that is no id", "?startAfterId=xyz"],
  ])("rejects a list with %s", async (_name, qs) => {
    expectError(await admin("GET", `/api/categories${qs}`), 400);
  });

  it("rejects an unsupported media type without a 5xx", async () => {
    const res = await admin("POST", "/api/categories", "nameLocalized=x", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(res.status).toBe(415);
    expect(Array.isArray(res.body)).toBe(true);
  });
});

describe("category list", () => {
  it("pages with size and startAfterId in creation order", async () => {
    const s = await startSystem();
    try {
      const api = s.as(await s.token("pager"));
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push((await api("POST", "/api/categories", { nameLocalized: { en_US: `c${i}` } })).body.id);
      const first = await api("GET", "/api/categories?size=3");
      expect(first.body.map((c: { id: string }) => c.id)).toEqual(ids.slice(0, 3));
      const second = await api("GET", `/api/categories?size=3&startAfterId=${ids[2]}`);
      expect(second.body.map((c: { id: string }) => c.id)).toEqual(ids.slice(3, 6));
      const rest = await api("GET", `/api/categories?startAfterId=${ids[5]}`);
      expect(rest.body.map((c: { id: string }) => c.id)).toEqual(ids.slice(6));
      expect((await api("GET", "/api/categories")).body).toHaveLength(7);
    } finally {
      await s.close();
    }
  });
});
