import { describe, expect, it } from "vitest";
import {
  checkIcon,
  createContainerType,
  matchesScannable,
  modifyLoadUnitType,
  updateOperativeContainerType,
} from "./container-type.ts";
import { resolveLocalized } from "./locale.ts";
import type { ChangeContext } from "./types.ts";

const c: ChangeContext = {
  now: new Date("2026-11-25T10:00:00.000Z"),
  newId: () => "n",
  defaultLocale: "en_US",
};
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("resolveLocalized", () => {
  it("requested, then its other spelling, then the default, then the first; nothing for an empty map", () => {
    const m = { de_DE: "Kiste", en_US: "Box", fr_FR: "Boîte" };
    expect(resolveLocalized(m, "de_DE", "en_US")).toBe("Kiste");
    expect(resolveLocalized(m, "fr-FR", "en_US")).toBe("Boîte");
    expect(resolveLocalized(m, "it_IT", "en_US")).toBe("Box");
    expect(resolveLocalized({ pl_PL: "Pudło" }, undefined, "en_US")).toBe("Pudło");
    expect(resolveLocalized({}, "de_DE", "en_US")).toBeUndefined();
    expect(resolveLocalized(undefined, "de_DE", "en_US")).toBeUndefined();
  });
});

describe("operative container types", () => {
  it("creation: ACTIVE by default, operative types once each, name resolved; unknown fields dropped", () => {
    const t = createContainerType(
      "OPERATIVE",
      "t",
      {
        nameLocalized: { en_US: "Box" },
        allowedOperativeTypes: ["PICKING", "PICKING", "HANDOVER"],
        extra: 1,
      },
      c,
    );
    expect(t).toEqual({
      id: "t",
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      nameLocalized: { en_US: "Box" },
      name: "Box",
      allowedOperativeTypes: ["PICKING", "HANDOVER"],
      status: "ACTIVE",
    });
  });

  it("update: the given fields replace the stored ones, the version rises", () => {
    const t = createContainerType(
      "OPERATIVE",
      "t",
      { nameLocalized: { en_US: "Box" }, allowedOperativeTypes: ["PICKING"], priority: 5 },
      c,
    );
    const u = updateOperativeContainerType(t, { version: 1, priority: 1, status: "INACTIVE" }, c);
    expect(u).toMatchObject({
      version: 2,
      priority: 1,
      status: "INACTIVE",
      allowedOperativeTypes: ["PICKING"],
    });
  });

  it("scannable identifiers: PREFIX, SUFFIX, CONTAINS, exact without a search type", () => {
    const t = (searchType?: "PREFIX" | "SUFFIX" | "CONTAINS") => ({
      id: "t",
      version: 1,
      created: "",
      lastModified: "",
      nameLocalized: {},
      scannableIdentifiers: [{ identifiers: ["AB"], ...(searchType ? { searchType } : {}) }],
    });
    expect(matchesScannable(t("PREFIX"), "AB12")).toBe(true);
    expect(matchesScannable(t("PREFIX"), "12AB")).toBe(false);
    expect(matchesScannable(t("SUFFIX"), "12AB")).toBe(true);
    expect(matchesScannable(t("CONTAINS"), "1AB2")).toBe(true);
    expect(matchesScannable(t(), "AB")).toBe(true);
    expect(matchesScannable(t(), "AB1")).toBe(false);
  });
});

describe("load unit types", () => {
  it("ModifyLoadUnitType actions overwrite in order; another action is a 400", () => {
    const t = createContainerType(
      "LOAD_UNIT_TYPE",
      "l",
      { nameLocalized: { en_US: "Bag" }, allowedOperativeTypes: ["PICKING"] },
      c,
    );
    expect(t).not.toHaveProperty("allowedOperativeTypes");
    const m = modifyLoadUnitType(
      t,
      {
        version: 1,
        actions: [
          { action: "ModifyLoadUnitType", priority: 3 },
          { action: "ModifyLoadUnitType", priority: 4, nameLocalized: { en_US: "Sack" } },
        ],
      },
      c,
    );
    expect(m).toMatchObject({ version: 2, priority: 4, name: "Sack" });
    expect(() => modifyLoadUnitType(t, { actions: [{ action: "Other" }] }, c)).toThrow(/ModifyLoadUnitType/);
  });
});

describe("icons", () => {
  it("accepts images by their content, with their media type", () => {
    expect(checkIcon({ name: "a.png", content: PNG.toString("base64") }, 1024)).toMatchObject({
      mediaType: "image/png",
      fileName: "a.png",
    });
    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>').toString(
      "base64",
    );
    expect(checkIcon({ name: "a.svg", content: svg }, 1024).mediaType).toBe("image/svg+xml");
    expect(
      checkIcon({ name: "a.jpg", content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0]).toString("base64") }, 1024)
        .mediaType,
    ).toBe("image/jpeg");
  });
  it("refuses what is not base64, not an image, empty or too large", () => {
    expect(() => checkIcon({ name: "a.png", content: "%%%" }, 1024)).toThrow(
      expect.objectContaining({ code: "ICON_NOT_BASE64" }),
    );
    expect(() => checkIcon({ name: "a.png", content: "" }, 1024)).toThrow(
      expect.objectContaining({ code: "ICON_NOT_BASE64" }),
    );
    expect(() =>
      checkIcon({ name: "a.png", content: Buffer.from("<html>").toString("base64") }, 1024),
    ).toThrow(expect.objectContaining({ code: "ICON_TYPE_NOT_SUPPORTED" }));
    expect(() => checkIcon({ name: "a.png", content: PNG.toString("base64") }, 10)).toThrow(
      expect.objectContaining({ code: "ICON_TOO_LARGE" }),
    );
    expect(() => checkIcon({ name: "", content: PNG.toString("base64") }, 1024)).toThrow(
      expect.objectContaining({ code: "ICON_NAME_REQUIRED" }),
    );
  });
});
