import { describe, expect, it } from "vitest";
import { facilityChange, facilityInput, toFacilityMessage } from "./facility.mapper.ts";

describe("facilityChange", () => {
  it("names every given field; a detail key is a detail; null clears", () => {
    const { version, change } = facilityChange({
      type: "MANAGED_FACILITY",
      version: 3,
      name: "N",
      customAttributes: null,
      pickingMethods: ["BATCH"],
    });
    expect(version).toBe(3);
    expect(change.fields).toEqual(["type", "name", "customAttributes"]);
    expect(change.detailKeys).toEqual(["pickingMethods"]);
    expect(change.values).toMatchObject({
      name: "N",
      customAttributes: null,
      details: { pickingMethods: ["BATCH"] },
    });
  });

  it("merges the deprecated actions in order", () => {
    const { change } = facilityChange({
      version: 1,
      actions: [
        { action: "ModifyFacility", name: "A" },
        { action: "ModifyFacility", name: "B", status: "OFFLINE" },
      ],
    });
    expect(change.fields).toEqual(["name", "status"]);
    expect(change.values).toMatchObject({ name: "B", status: "OFFLINE" });
  });

  it("refuses a field that cannot be modified, naming it", () => {
    expect(() => facilityChange({ version: 1, id: "x" })).toThrow(expect.objectContaining({ field: "/id" }));
    expect(() => facilityChange({ version: 1, actions: "x" })).toThrow(
      expect.objectContaining({ field: "/actions" }),
    );
  });
});

describe("toFacilityMessage", () => {
  it("answers the REST document: fields, then detail keys in the reference's order; the address as the Address message keeps it", () => {
    const now = new Date("2026-01-02T03:04:05.678Z");
    const input = facilityInput({
      name: "S",
      tags: [{ id: "a", value: "b" }],
      contact: { firstName: "A", lastName: "B" },
      address: { companyName: "C", country: "DE", extra: 1 },
    });
    const message = toFacilityMessage({
      ...input,
      id: "f",
      version: 2,
      created: now,
      lastModified: now,
      type: "SUPPLIER",
      status: "OFFLINE",
    });
    const doc = JSON.parse(Buffer.from(message.documentJson!).toString("utf8"));
    expect(Object.keys(doc)).toEqual([
      "id",
      "version",
      "created",
      "lastModified",
      "name",
      "type",
      "status",
      "address",
      "contact",
      "tags",
    ]);
    expect(doc).toMatchObject({ version: 2, created: "2026-01-02T03:04:05.678Z", type: "SUPPLIER" });
    // Unknown keys do not survive the Address message.
    expect(doc.address).toEqual({ companyName: "C", country: "DE" });
    expect(message.address).toMatchObject({ companyName: "C", country: "DE" });
  });
});
