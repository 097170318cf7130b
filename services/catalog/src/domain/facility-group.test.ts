import { describe, expect, it } from "vitest";
import {
  applyGroupAction,
  checkGroupsPerFacility,
  createFacilityGroup,
  type FacilityGroup,
  type GroupAction,
  replaceFacilityGroup,
} from "./facility-group.ts";

const NOW = new Date("2026-11-25T10:00:00.000Z");
const LATER = new Date("2026-11-25T11:00:00.000Z");
const limits = { facilitiesPerGroup: 3, groupsPerFacility: 2 };
const input = { tenantFacilityGroupId: "NORTH", nameLocalized: { de_DE: "Nord" }, facilityRefs: ["a", "b"] };
const group = (): FacilityGroup => createFacilityGroup(input, "g1", NOW, limits);
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string; kind?: string }).code ?? (e as { kind: string }).kind;
  }
  return "no error";
};

describe("createFacilityGroup", () => {
  it("version 1 with the facilities in the order given", () => {
    expect(group()).toEqual({
      id: "g1",
      version: 1,
      created: NOW,
      lastModified: NOW,
      tenantFacilityGroupId: "NORTH",
      nameLocalized: { de_DE: "Nord" },
      facilityRefs: ["a", "b"],
      customAttributes: null,
    });
  });

  it.each([
    ["no tenantFacilityGroupId", { ...input, tenantFacilityGroupId: undefined }, "REQUIRED"],
    ["a tenantFacilityGroupId with ':'", { ...input, tenantFacilityGroupId: "a:b" }, "INVALID_IDENTIFIER"],
    ["no name", { ...input, nameLocalized: {} }, "REQUIRED"],
    ["no facilityRefs", { ...input, facilityRefs: undefined }, "REQUIRED"],
    ["a facility twice", { ...input, facilityRefs: ["a", "a"] }, "DUPLICATE_FACILITY"],
    [
      "more facilities than a group holds",
      { ...input, facilityRefs: ["a", "b", "c", "d"] },
      "LIMIT_EXCEEDED",
    ],
  ])("400 for %s", (_, body, expected) => {
    expect(code(() => createFacilityGroup(body, "g", NOW, limits))).toBe(expected);
  });

  it("takes exactly as many facilities as a group holds", () => {
    expect(
      createFacilityGroup({ ...input, facilityRefs: ["a", "b", "c"] }, "g", NOW, limits).facilityRefs,
    ).toHaveLength(3);
  });
});

describe("replaceFacilityGroup (PATCH)", () => {
  it("replaces on the current version; facilityRefs and customAttributes left out are removed, identifier and name stay", () => {
    const g = { ...group(), customAttributes: { region: "N" } };
    const next = replaceFacilityGroup(g, { version: 1 }, LATER, limits);
    expect(next).toMatchObject({
      version: 2,
      lastModified: LATER,
      tenantFacilityGroupId: "NORTH",
      nameLocalized: { de_DE: "Nord" },
      facilityRefs: [],
      customAttributes: null,
    });
    expect(
      replaceFacilityGroup(
        g,
        { version: 1, facilityRefs: ["c"], tenantFacilityGroupId: "N2" },
        LATER,
        limits,
      ),
    ).toMatchObject({
      facilityRefs: ["c"],
      tenantFacilityGroupId: "N2",
    });
  });

  it("400 without a version, 409 on another", () => {
    expect(code(() => replaceFacilityGroup(group(), {}, LATER, limits))).toBe("VERSION_REQUIRED");
    expect(code(() => replaceFacilityGroup(group(), { version: 5 }, LATER, limits))).toBe("VERSION_CONFLICT");
  });
});

describe("applyGroupAction", () => {
  const act = (g: FacilityGroup, a: GroupAction) => applyGroupAction(g, a, LATER, limits);

  it("adds new facilities at the end, keeps present ones, and says which are new", () => {
    const r = act(group(), { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: ["b", "c"] });
    expect(r.group.facilityRefs).toEqual(["a", "b", "c"]);
    expect(r.added).toEqual(["c"]);
    expect(r.group.version).toBe(2);
  });

  it("checks the version ADD names (it may name none) and REMOVE must name", () => {
    expect(
      code(() => act(group(), { name: "ADD_FACILITIES_TO_GROUP", facilitiesToAdd: ["c"], version: 3 })),
    ).toBe("VERSION_CONFLICT");
    expect(act(group(), { name: "ADD_FACILITIES_TO_GROUP", facilitiesToAdd: ["c"] }).group.version).toBe(2);
    expect(
      code(() =>
        act(group(), { name: "REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: ["a"], version: undefined }),
      ),
    ).toBe("VERSION_REQUIRED");
    expect(
      act(group(), { name: "REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: ["a", "x"], version: 1 }).group
        .facilityRefs,
    ).toEqual(["b"]);
  });

  it("changes nothing (not even the version) when nothing changes", () => {
    const g = group();
    expect(
      act(g, { name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: ["x"] }).group,
    ).toBe(g);
    expect(act(g, { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: ["a"] }).group).toBe(g);
  });

  it("400 past the group's size, for none, over 200 or a duplicate", () => {
    expect(
      code(() => act(group(), { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: ["c", "d"] })),
    ).toBe("GROUP_FULL");
    expect(
      code(() => act(group(), { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: [] })),
    ).toBe("LIMIT_EXCEEDED");
    const many = Array.from({ length: 201 }, (_, i) => `f${i}`);
    expect(
      code(() =>
        act(group(), { name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP", facilitiesToRemove: many }),
      ),
    ).toBe("LIMIT_EXCEEDED");
    expect(
      code(() => act(group(), { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP", facilitiesToAdd: ["c", "c"] })),
    ).toBe("DUPLICATE_FACILITY");
  });
});

describe("checkGroupsPerFacility", () => {
  it("refuses a facility already in as many groups as allowed, naming it", () => {
    const counts = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    expect(() => checkGroupsPerFacility(["a"], counts, limits, "/facilitiesToAdd")).not.toThrow();
    expect(() => checkGroupsPerFacility(["a", "b"], counts, limits, "/facilitiesToAdd")).toThrow(
      /facility b is already in 2/,
    );
  });
});
