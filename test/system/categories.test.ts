import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type System, startSystem } from "../support/system.ts";

let sys: System;
let admin: Awaited<ReturnType<System["as"]>>;

beforeAll(async () => {
  sys = await startSystem();
  admin = sys.as(await sys.token("acme", { roles: ["ADMIN"] }));
});
afterAll(() => sys?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

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

    const list = await admin("GET", "/api/categories");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([replaced.body]);

    const deleted = await admin("DELETE", `/api/categories/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual(replaced.body);
    expect((await admin("GET", `/api/categories/${id}`)).status).toBe(404);
  });
});
