import { describe, expect, it } from "vitest";
import { createFacility, type FacilityInput, modifyFacility, replaceFacility } from "./facility.ts";
import { resolveTimeZone } from "./time-zone.ts";

const NOW = new Date("2026-05-01T10:00:00.000Z");
const address = {
  companyName: "ACME",
  street: "Main",
  houseNumber: "1",
  postalCode: "12345",
  city: "Berlin",
  country: "DE",
};
const input = (over: Partial<FacilityInput> = {}): FacilityInput => ({
  tenantFacilityId: "F1",
  name: "Store",
  locationType: null,
  address,
  customAttributes: null,
  details: {},
  ...over,
});

describe("createFacility", () => {
  it("defaults type, status and location type", () => {
    expect(createFacility(input(), "id", NOW)).toMatchObject({
      type: "MANAGED_FACILITY",
      status: "ONLINE",
      locationType: "STORE",
      version: 1,
    });
  });

  it.each([
    ["no name", input({ name: " " }), "MISSING_NAME"],
    ["a managed facility without address", input({ address: null }), "MISSING_ADDRESS"],
    [
      "a managed facility without street",
      input({ address: { ...address, street: "" } }),
      "MISSING_ADDRESS_FIELD",
    ],
    [
      "a supplier address without companyName",
      input({ type: "SUPPLIER", address: { country: "DE" } }),
      "MISSING_ADDRESS_FIELD",
    ],
    ["a lowercase country", input({ address: { ...address, country: "de" } }), "INVALID_VALUE"],
    ["a tenantFacilityId with a colon", input({ tenantFacilityId: "a:b" }), "INVALID_IDENTIFIER"],
    [
      "an unknown time zone",
      input({ address: { ...address, resolvedTimeZone: { timeZoneId: "Mars/Base" } } }),
      "INVALID_TIME_ZONE",
    ],
  ])("rejects %s", (_n, i, code) => {
    expect(() => createFacility(i, "id", NOW)).toThrow(expect.objectContaining({ kind: "invalid", code }));
  });

  it("lets a supplier go without an address", () => {
    expect(createFacility(input({ type: "SUPPLIER", address: null }), "id", NOW)).toMatchObject({
      type: "SUPPLIER",
      locationType: null,
    });
  });

  it("resolves the time zone", () => {
    const f = createFacility(
      input({ address: { ...address, resolvedTimeZone: { timeZoneId: "Europe/Berlin" } } }),
      "id",
      NOW,
    );
    expect(f.address?.resolvedTimeZone).toEqual({
      timeZoneId: "Europe/Berlin",
      timeZoneName: "Central European Standard Time",
      offsetInSeconds: 3600,
      source: "IANA",
    });
  });
});

describe("modifyFacility", () => {
  const f = createFacility(
    input({ customAttributes: { a: 1 }, details: { fulfillmentProcessBuffer: 240 } }),
    "id",
    NOW,
  );
  const later = new Date("2026-05-02T00:00:00.000Z");

  it("changes the named fields only, bumps the version", () => {
    const next = modifyFacility(
      f,
      { fields: ["name", "status"], detailKeys: [], values: { name: "New", status: "OFFLINE" } },
      1,
      later,
    );
    expect(next).toMatchObject({
      name: "New",
      status: "OFFLINE",
      version: 2,
      lastModified: later,
      customAttributes: { a: 1 },
      tenantFacilityId: "F1",
    });
  });

  it("clears a named field that has no value, and removes detail keys", () => {
    const next = modifyFacility(
      f,
      {
        fields: ["customAttributes", "tenantFacilityId"],
        detailKeys: ["fulfillmentProcessBuffer"],
        values: {},
      },
      1,
      later,
    );
    expect(next).toMatchObject({ customAttributes: null, tenantFacilityId: null, details: {} });
  });

  it("refuses a stale version with both versions", () => {
    expect(() => modifyFacility(f, { fields: [], detailKeys: [], values: {} }, 7, later)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 7, version: 1 }),
    );
  });

  it("re-checks the invariants", () => {
    expect(() => modifyFacility(f, { fields: ["address"], detailKeys: [], values: {} }, 1, later)).toThrow(
      expect.objectContaining({ code: "MISSING_ADDRESS" }),
    );
    expect(() => modifyFacility(f, { fields: ["name"], detailKeys: [], values: {} }, 1, later)).toThrow(
      expect.objectContaining({ code: "MISSING_NAME" }),
    );
  });
});

describe("replaceFacility", () => {
  const f = createFacility(
    input({
      type: "MANAGED_FACILITY",
      status: "SUSPENDED",
      locationType: "WAREHOUSE",
      customAttributes: { a: 1 },
      details: { fulfillmentProcessBuffer: 240, contact: { firstName: "A", lastName: "B" } },
    }),
    "id",
    NOW,
  );
  const later = new Date("2026-05-02T00:00:00.000Z");

  it("takes every field from the input and removes what it leaves out", () => {
    const next = replaceFacility(
      f,
      input({ tenantFacilityId: null, name: "New", details: { capacityEnabled: true } }),
      1,
      later,
    );
    expect(next).toEqual({
      ...f,
      version: 2,
      lastModified: later,
      tenantFacilityId: null,
      name: "New",
      status: "ONLINE",
      locationType: "STORE",
      customAttributes: null,
      details: { capacityEnabled: true },
    });
  });

  it("refuses a stale version and re-checks the invariants", () => {
    expect(() => replaceFacility(f, input(), 2, later)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 2, version: 1 }),
    );
    expect(() => replaceFacility(f, input({ address: null }), 1, later)).toThrow(
      expect.objectContaining({ code: "MISSING_ADDRESS" }),
    );
  });
});

describe("resolveTimeZone", () => {
  it("reports the standard offset also in the southern hemisphere", () => {
    expect(resolveTimeZone("Australia/Sydney", 2026)).toMatchObject({ offsetInSeconds: 36000 });
    expect(resolveTimeZone("America/Los_Angeles", 2026)).toMatchObject({
      offsetInSeconds: -28800,
      timeZoneName: "Pacific Standard Time",
    });
  });
});
