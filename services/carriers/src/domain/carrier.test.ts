import { describe, expect, it } from "vitest";
import { CARRIER_KEYS, createCarrier, isCarrierKey, modifyCarrier, strippedCarrier } from "./carrier.ts";
import type { ChangeContext } from "./types.ts";

const c: ChangeContext = { now: new Date("2026-11-25T10:00:00.000Z"), newId: () => "new" };
const later: ChangeContext = { ...c, now: new Date("2026-11-25T11:00:00.000Z") };
const err = (kind: string, code?: string) => expect.objectContaining(code ? { kind, code } : { kind });

describe("carrier keys", () => {
  it("accepts the reference's keys and CUSTOM_<name>, nothing else", () => {
    for (const key of CARRIER_KEYS) expect(isCarrierKey(key), key).toBe(true);
    for (const key of ["CUSTOM_A", "CUSTOM_Store-1", "CUSTOM_x_y"]) expect(isCarrierKey(key), key).toBe(true);
    for (const key of ["CUSTOM_", "custom_x", "FOO", "GLS ", "", "CUSTOM_ä", `CUSTOM_${"x".repeat(101)}`]) {
      expect(isCarrierKey(key), key).toBe(false);
    }
  });
});

describe("createCarrier", () => {
  it("fills the reference's defaults; the input overrides them", () => {
    const { carrier, secret } = createCarrier("id1", { key: "GLS", name: "GLS" }, c);
    expect(carrier).toEqual({
      id: "id1",
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      key: "GLS",
      name: "GLS",
      status: "INACTIVE",
      deliveryType: "DELIVERY",
      lifecycle: "GA",
      defaultParcelHeightInCm: 10,
      defaultParcelLengthInCm: 25,
      defaultParcelWidthInCm: 35,
      defaultParcelWeightInGram: 1000,
    });
    expect(secret).toBeUndefined();
    const custom = createCarrier(
      "id2",
      { key: "UPS", name: "UPS", status: "ACTIVE", defaultParcelWidthInCm: 50, productValueNeeded: false },
      c,
    ).carrier;
    expect(custom).toMatchObject({ status: "ACTIVE", defaultParcelWidthInCm: 50, productValueNeeded: false });
  });

  it("keeps only the credentials' key in the document; the whole object is the secret", () => {
    const credentials = { key: "GLS", username: "u", password: "p" };
    const { carrier, secret } = createCarrier("id", { key: "GLS", name: "n", credentials }, c);
    expect(carrier.credentials).toEqual({ key: "GLS" });
    expect(JSON.stringify(carrier)).not.toContain("password");
    expect(secret).toEqual(credentials);
  });

  it("400 for a bad key, a missing name, credentials without key, bad enums and parcel sizes", () => {
    expect(() => createCarrier("id", { key: "FOO", name: "n" }, c)).toThrow(
      err("invalid", "INVALID_CARRIER_KEY"),
    );
    expect(() => createCarrier("id", { name: "n" }, c)).toThrow(err("invalid", "INVALID_CARRIER_KEY"));
    expect(() => createCarrier("id", { key: "GLS" }, c)).toThrow(err("invalid"));
    expect(() => createCarrier("id", { key: "GLS", name: " " }, c)).toThrow(err("invalid"));
    expect(() => createCarrier("id", { key: "GLS", name: "n", credentials: { user: "x" } }, c)).toThrow(
      err("invalid", "INVALID_CREDENTIALS"),
    );
    expect(() => createCarrier("id", { key: "GLS", name: "n", status: "ON" }, c)).toThrow(err("invalid"));
    expect(() => createCarrier("id", { key: "GLS", name: "n", defaultParcelHeightInCm: 0 }, c)).toThrow(
      expect.objectContaining({ field: "/defaultParcelHeightInCm" }),
    );
  });
});

describe("modifyCarrier", () => {
  const base = () => createCarrier("id", { key: "DPD_CH", name: "DPD" }, c).carrier;

  it("applies ModifyCarrier actions in order on the current version; the key never changes", () => {
    const { carrier, secret } = modifyCarrier(
      base(),
      undefined,
      {
        version: 1,
        actions: [
          { action: "ModifyCarrier", name: "First", status: "ACTIVE" },
          {
            action: "ModifyCarrier",
            name: "Second",
            lifecycle: "BETA",
            key: "UPS",
            defaultParcelWeightInGram: 2,
          },
        ],
      },
      later,
    );
    expect(carrier).toMatchObject({
      key: "DPD_CH",
      name: "Second",
      status: "ACTIVE",
      lifecycle: "BETA",
      deliveryType: "DELIVERY",
      defaultParcelWeightInGram: 2,
      defaultParcelWidthInCm: 35,
      version: 2,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T11:00:00.000Z",
    });
    expect(secret).toBeUndefined();
  });

  it("400 without a version, 409 on another one (with both versions)", () => {
    const actions = [{ action: "ModifyCarrier", name: "x" }];
    expect(() => modifyCarrier(base(), undefined, { actions }, later)).toThrow(
      err("invalid", "VERSION_REQUIRED"),
    );
    expect(() => modifyCarrier(base(), undefined, { version: 3, actions }, later)).toThrow(
      expect.objectContaining({ kind: "version_conflict", requestVersion: 3, version: 1 }),
    );
  });

  it("400 for no actions, another action, bad values", () => {
    expect(() => modifyCarrier(base(), undefined, { version: 1, actions: [] }, later)).toThrow(
      err("invalid", "ACTIONS_REQUIRED"),
    );
    expect(() =>
      modifyCarrier(base(), undefined, { version: 1, actions: [{ action: "ModifyFacility" }] }, later),
    ).toThrow(expect.objectContaining({ code: "UNKNOWN_ACTION", field: "/actions/0/action" }));
    expect(() =>
      modifyCarrier(
        base(),
        undefined,
        { version: 1, actions: [{ action: "ModifyCarrier", deliveryType: "NOW" }] },
        later,
      ),
    ).toThrow(err("invalid"));
    expect(() =>
      modifyCarrier(
        base(),
        undefined,
        { version: 1, actions: [{ action: "ModifyCarrier", defaultParcelWidthInCm: 0.5 }] },
        later,
      ),
    ).toThrow(err("invalid"));
  });

  it("merges credentials of the stored type, replaces those of another", () => {
    const stored = { key: "DPD_CH", delisId: "d", password: "old" };
    const merged = modifyCarrier(
      base(),
      stored,
      { version: 1, actions: [{ action: "ModifyCarrier", credentials: { key: "DPD_CH", password: "new" } }] },
      later,
    );
    expect(merged.secret).toEqual({ key: "DPD_CH", delisId: "d", password: "new" });
    expect(merged.carrier.credentials).toEqual({ key: "DPD_CH" });
    const replaced = modifyCarrier(
      base(),
      stored,
      { version: 1, actions: [{ action: "ModifyCarrier", credentials: { key: "DPD_CH_VCE", user: "u" } }] },
      later,
    );
    expect(replaced.secret).toEqual({ key: "DPD_CH_VCE", user: "u" });
    expect(replaced.carrier.credentials).toEqual({ key: "DPD_CH_VCE" });
    // Two actions: the second merges into what the first left.
    const twice = modifyCarrier(
      base(),
      stored,
      {
        version: 1,
        actions: [
          { action: "ModifyCarrier", credentials: { key: "DPD_CH", password: "a" } },
          { action: "ModifyCarrier", credentials: { key: "DPD_CH", delisId: "e" } },
        ],
      },
      later,
    );
    expect(twice.secret).toEqual({ key: "DPD_CH", delisId: "e", password: "a" });
  });
});

it("strippedCarrier has exactly the StrippedCarrier fields", () => {
  const { carrier } = createCarrier(
    "id",
    { key: "GLS", name: "n", credentials: { key: "GLS", p: "s" }, logoUrl: "u" },
    c,
  );
  expect(Object.keys(strippedCarrier(carrier)).sort()).toEqual(
    ["created", "deliveryType", "id", "key", "lastModified", "lifecycle", "name", "status", "version"].sort(),
  );
});
