import { SortDirection } from "@fop/proto/fop/common/v1/common_pb.js";
import { describe, expect, it } from "vitest";
import { toModifyFacilityRequest } from "./facilities/map.ts";
import { toSearchRequest } from "./search.ts";

describe("toSearchRequest", () => {
  it("maps plain and map-valued sort entries", () => {
    expect(toSearchRequest({ query: {}, sort: [{ created: "DESC" }] }).sort).toEqual({
      field: "created",
      key: "",
      direction: SortDirection.DESC,
    });
    expect(toSearchRequest({ query: {}, sort: [{ customAttributes: { rank: "ASC" } }] }).sort).toEqual({
      field: "customAttributes",
      key: "rank",
      direction: SortDirection.ASC,
    });
    expect(
      toSearchRequest({ query: { a: 1 }, last: 5, before: "c", options: { withTotal: true } }),
    ).toMatchObject({ last: 5, before: "c", withTotal: true, size: 0 });
  });
});

describe("toModifyFacilityRequest", () => {
  it("names every given field in the mask; null clears", () => {
    const req = toModifyFacilityRequest("id", {
      type: "MANAGED_FACILITY",
      version: 3,
      name: "N",
      customAttributes: null,
      pickingMethods: ["BATCH"],
    } as never);
    expect(req.updateMask?.paths).toEqual(["type", "name", "custom_attributes", "details.pickingMethods"]);
    expect(req.version).toBe(3n);
    expect(req.facility).toMatchObject({
      name: "N",
      customAttributes: undefined,
      details: { pickingMethods: ["BATCH"] },
    });
  });

  it("merges the deprecated actions in order", () => {
    const req = toModifyFacilityRequest("id", {
      version: 1,
      actions: [
        { action: "ModifyFacility", name: "A" },
        { action: "ModifyFacility", name: "B", status: "OFFLINE" },
      ],
    } as never);
    expect(req.updateMask?.paths).toEqual(["name", "status"]);
    expect(req.facility).toMatchObject({ name: "B" });
  });
});
