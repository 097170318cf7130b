import { describe, expect, it } from "vitest";
import { createCategory, nameIndex, replaceCategory } from "./category.ts";

const NOW = new Date("2026-05-01T10:00:00.000Z");

describe("categories", () => {
  it("start at version 1 with created = lastModified", () => {
    expect(createCategory({ nameLocalized: { en_US: "Tea" } }, "id", NOW)).toEqual({
      id: "id",
      version: 1,
      created: NOW,
      lastModified: NOW,
      tenantCategoryId: null,
      nameLocalized: { en_US: "Tea" },
      customAttributes: null,
    });
  });

  it.each([
    [{ tenantCategoryId: "a b", nameLocalized: {} }, "INVALID_IDENTIFIER"],
    [{ tenantCategoryId: "A", nameLocalized: {} }, "INVALID_IDENTIFIER"],
    [{ nameLocalized: { "!!": "x" } }, "INVALID_LOCALE"],
    [{ nameLocalized: { en_US: "x".repeat(1025) } }, "INVALID_VALUE"],
    [{ nameLocalized: {}, customAttributes: { $where: 1 } }, "INVALID_CUSTOM_ATTRIBUTE_KEY"],
  ])("reject invalid input %#", (input, code) => {
    expect(() => createCategory(input, "id", NOW)).toThrow(
      expect.objectContaining({ kind: "invalid", code }),
    );
  });

  it("are replaced whole: omitted optional fields are removed", () => {
    const c = createCategory(
      { tenantCategoryId: "TEA", nameLocalized: { en_US: "Tea" }, customAttributes: { a: 1 } },
      "id",
      NOW,
    );
    const later = new Date("2026-05-02T00:00:00.000Z");
    expect(replaceCategory(c, { nameLocalized: { de_DE: "Tee" } }, 1, later)).toMatchObject({
      version: 2,
      created: NOW,
      lastModified: later,
      tenantCategoryId: null,
      customAttributes: null,
      nameLocalized: { de_DE: "Tee" },
    });
  });

  it("refuse a stale version", () => {
    const c = createCategory({ nameLocalized: {} }, "id", NOW);
    expect(() => replaceCategory(c, { nameLocalized: {} }, 2, NOW)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 2, version: 1 }),
    );
  });

  it("index names: every value for filters, the default locale's for sorting", () => {
    expect(nameIndex({ en_US: "Tea", de_DE: "Tee", fr_FR: "Tea" }, "en_US")).toEqual({
      values: ["Tee", "Tea"],
      sortName: "Tea",
    });
    expect(nameIndex({ fr_FR: "Thé", de_DE: "Tee" }, "en_US")).toEqual({
      values: ["Tee", "Thé"],
      sortName: "Tee",
    });
    expect(nameIndex({}, "en_US")).toEqual({ values: [], sortName: null });
  });
});
