import { fastify } from "fastify";
import { describe, expect, it } from "vitest";
import { installErrorHandling } from "./errors.ts";
import { installLifecycleHeaders } from "./lifecycle.ts";
import { parseUrn } from "./urn.ts";

describe("parseUrn", () => {
  it.each([
    [
      "urn:fft:facility:tenantFacilityId:K12345",
      { entity: "facility", field: "tenantFacilityId", value: "K12345" },
    ],
    [
      "URN:FFT:category:tenantCategoryId:A:B",
      { entity: "category", field: "tenantCategoryId", value: "A:B" },
    ],
  ])("%s", (raw, parsed) => {
    expect(parseUrn(raw)).toEqual(parsed);
  });
  it.each([
    "urn:other:facility:tenantFacilityId:x",
    "urn:fft:facility:tenantFacilityId:",
    "urn:fft:facility",
    "fft:facility:a:b",
  ])("rejects %s", (raw) => {
    expect(parseUrn(raw)).toBeUndefined();
  });
});

describe("lifecycle headers", () => {
  it("marks deprecated routes with Deprecation and Link, and only those", async () => {
    const app = fastify();
    installErrorHandling(app);
    installLifecycleHeaders(app);
    app.get("/old", { config: { lifecycle: "deprecated", replacement: "/new" } }, async () => ({ ok: true }));
    app.get("/new", { config: { lifecycle: "GA" } }, async () => ({ ok: true }));
    const old = await app.inject("/old");
    expect(old.headers.deprecation).toMatch(/^@\d+$/);
    expect(old.headers.link).toBe('</new>; rel="successor-version"');
    const current = await app.inject("/new");
    expect(current.headers.deprecation).toBeUndefined();
    await app.close();
  });
});
