import { describe, expect, it } from "vitest";
import { CARRIER_KEYS, createCarrier, isCarrierKey, modifyCarrier, strippedCarrier } from "./carrier.ts";
import type { ChangeContext, Json, JsonObject } from "./types.ts";

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

describe("createCarrier: keys, overrides and credentials", () => {
  it.each([...CARRIER_KEYS, "CUSTOM_A", "CUSTOM_my-carrier_2"])("accepts the key %s", (key) => {
    expect(createCarrier("id", { key, name: "n" }, c).carrier.key).toBe(key);
  });

  it.each<JsonObject["key"]>(["CUSTOM_", "custom_x", "FOO", "gls", "CUSTOM__x", "CUSTOM_a b", 42, null])(
    "refuses the key %j: 400 INVALID_CARRIER_KEY at /key",
    (key) => {
      expect(() => createCarrier("id", { key, name: "n" }, c)).toThrow(
        expect.objectContaining({ kind: "invalid", code: "INVALID_CARRIER_KEY", field: "/key" }),
      );
    },
  );

  it("the input overrides every default", () => {
    const { carrier } = createCarrier(
      "id1",
      {
        key: "CUSTOM_Own",
        name: "Own",
        status: "ACTIVE",
        deliveryType: "SAMEDAY",
        lifecycle: "ALPHA",
        defaultParcelHeightInCm: 1,
        defaultParcelLengthInCm: 2,
        defaultParcelWidthInCm: 3,
        defaultParcelWeightInGram: 4,
        logoUrl: "https://logo",
        productValueNeeded: true,
        parcelLabelClassifications: [{ dimensions: { weightInG: 1 } }],
      },
      c,
    );
    expect(carrier).toEqual({
      id: "id1",
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
      key: "CUSTOM_Own",
      name: "Own",
      status: "ACTIVE",
      deliveryType: "SAMEDAY",
      lifecycle: "ALPHA",
      defaultParcelHeightInCm: 1,
      defaultParcelLengthInCm: 2,
      defaultParcelWidthInCm: 3,
      defaultParcelWeightInGram: 4,
      logoUrl: "https://logo",
      productValueNeeded: true,
      parcelLabelClassifications: [{ dimensions: { weightInG: 1 } }],
    });
  });

  it("takes id, version and timestamps from the service, not from the input", () => {
    const { carrier } = createCarrier(
      "id1",
      { key: "GLS", name: "n", id: "x", version: 9, created: "1999-01-01", lastModified: "1999-01-01" },
      c,
    );
    expect(carrier).toMatchObject({
      id: "id1",
      version: 1,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-25T10:00:00.000Z",
    });
  });

  it("the secret is the whole credentials object; the document only its key; none without credentials", () => {
    const credentials = { key: "DHL_V2", user: "u", apiKey: "k-123", nested: { pin: "0000" } };
    const { carrier, secret } = createCarrier("id", { key: "DHL_V2", name: "n", credentials }, c);
    expect(secret).toEqual(credentials);
    expect(carrier.credentials).toEqual({ key: "DHL_V2" });
    expect(Object.keys(carrier.credentials!)).toEqual(["key"]);
    for (const value of ["k-123", "0000", '"user"']) expect(JSON.stringify(carrier)).not.toContain(value);
    const none = createCarrier("id", { key: "GLS", name: "n", credentials: null }, c);
    expect(none.secret).toBeUndefined();
    expect(none.carrier).not.toHaveProperty("credentials");
  });

  it.each<JsonObject["credentials"]>([{ user: "x" }, { key: "" }, { key: 1 }, { key: null }, [], "GLS"])(
    "refuses the credentials %j: 400 INVALID_CREDENTIALS at /credentials/key",
    (credentials) => {
      expect(() => createCarrier("id", { key: "GLS", name: "n", credentials }, c)).toThrow(
        expect.objectContaining({ kind: "invalid", code: "INVALID_CREDENTIALS", field: "/credentials/key" }),
      );
    },
  );

  it.each<[string, JsonObject]>([
    ["status", { status: "active" }],
    ["deliveryType", { deliveryType: "EXPRESS" }],
    ["lifecycle", { lifecycle: 1 }],
    ["defaultParcelWeightInGram", { defaultParcelWeightInGram: 0.5 }],
    ["defaultParcelLengthInCm", { defaultParcelLengthInCm: -1 }],
    ["defaultParcelWidthInCm", { defaultParcelWidthInCm: "35" }],
    ["name", { name: "" }],
  ])("refuses a bad %s: 400 INVALID_VALUE naming the field", (field, extra) => {
    expect(() => createCarrier("id", { key: "GLS", name: "n", ...extra }, c)).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_VALUE", field: `/${field}` }),
    );
  });

  it("a parcel value of exactly 1 is the smallest accepted", () => {
    expect(
      createCarrier("id", { key: "GLS", name: "n", defaultParcelHeightInCm: 1 }, c).carrier,
    ).toMatchObject({
      defaultParcelHeightInCm: 1,
    });
  });
});

describe("modifyCarrier: versions, actions, credentials", () => {
  const withCredentials = () =>
    createCarrier("id", { key: "GLS", name: "GLS", credentials: { key: "GLS", user: "u", password: "p" } }, c)
      .carrier;
  const modify = (actions: JsonObject[], stored?: JsonObject, version: Json = 1) =>
    modifyCarrier(withCredentials(), stored, { version, actions }, later);

  it.each<Json>(["1", 1.5, null, true])(
    "version %j is no version: 400 VERSION_REQUIRED at /version",
    (version) => {
      expect(() => modify([{ action: "ModifyCarrier", name: "x" }], undefined, version)).toThrow(
        expect.objectContaining({ kind: "invalid", code: "VERSION_REQUIRED", field: "/version" }),
      );
    },
  );

  it.each([0, 2])("a stale version %i: 409 naming both versions", (version) => {
    expect(() => modify([{ action: "ModifyCarrier", name: "x" }], undefined, version)).toThrow(
      expect.objectContaining({
        kind: "version_conflict",
        code: "VERSION_CONFLICT",
        requestVersion: version,
        version: 1,
      }),
    );
  });

  it("moves the version by one and sets lastModified; created and id stay; the input carrier is not changed", () => {
    const before = withCredentials();
    const snapshot = structuredClone(before);
    const { carrier } = modifyCarrier(
      before,
      undefined,
      { version: 1, actions: [{ action: "ModifyCarrier" }] },
      later,
    );
    expect(carrier).toEqual({ ...snapshot, version: 2, lastModified: "2026-11-25T11:00:00.000Z" });
    expect(before).toEqual(snapshot);
  });

  it("applies every field in order: a later action wins, null leaves a field as it is", () => {
    const { carrier } = modify([
      {
        action: "ModifyCarrier",
        name: "One",
        status: "ACTIVE",
        deliveryType: "SAMEDAY",
        lifecycle: "ALPHA",
        defaultParcelHeightInCm: 11,
        defaultParcelLengthInCm: 26,
        defaultParcelWidthInCm: 36,
        defaultParcelWeightInGram: 1001,
        logoUrl: "https://one",
        productValueNeeded: true,
        parcelLabelClassifications: [{ a: 1 }],
      },
      {
        action: "ModifyCarrier",
        name: "Two",
        status: null,
        lifecycle: "BETA",
        defaultParcelHeightInCm: null,
        logoUrl: null,
        parcelLabelClassifications: [],
      },
    ]);
    expect(carrier).toMatchObject({
      name: "Two",
      status: "ACTIVE",
      deliveryType: "SAMEDAY",
      lifecycle: "BETA",
      defaultParcelHeightInCm: 11,
      defaultParcelLengthInCm: 26,
      defaultParcelWidthInCm: 36,
      defaultParcelWeightInGram: 1001,
      logoUrl: "https://one",
      productValueNeeded: true,
      parcelLabelClassifications: [],
    });
  });

  it("key, id, version and created in an action are ignored", () => {
    const { carrier } = modify([
      { action: "ModifyCarrier", key: "UPS", id: "other", version: 40, created: "1999-01-01T00:00:00.000Z" },
    ]);
    expect(carrier).toMatchObject({
      key: "GLS",
      id: "id",
      version: 2,
      created: "2026-11-25T10:00:00.000Z",
    });
  });

  it("without credentials in the actions: no secret to store, the document keeps its credentials key", () => {
    const { carrier, secret } = modify([{ action: "ModifyCarrier", name: "x" }], {
      key: "GLS",
      user: "u",
      password: "p",
    });
    expect(secret).toBeUndefined();
    expect(carrier.credentials).toEqual({ key: "GLS" });
  });

  it("credentials of the stored type are merged into the stored secret; the document shows only the key", () => {
    const { carrier, secret } = modify(
      [{ action: "ModifyCarrier", credentials: { key: "GLS", password: "new", contactId: "c" } }],
      { key: "GLS", user: "u", password: "old" },
    );
    expect(secret).toEqual({ key: "GLS", user: "u", password: "new", contactId: "c" });
    expect(carrier.credentials).toEqual({ key: "GLS" });
    expect(JSON.stringify(carrier)).not.toContain("new");
  });

  it("credentials of another type replace the stored ones; nothing stored: the new ones as they are", () => {
    const replaced = modify([{ action: "ModifyCarrier", credentials: { key: "UPS", token: "t" } }], {
      key: "GLS",
      user: "u",
      password: "p",
    });
    expect(replaced.secret).toEqual({ key: "UPS", token: "t" });
    expect(replaced.carrier.credentials).toEqual({ key: "UPS" });
    const fresh = modify([{ action: "ModifyCarrier", credentials: { key: "GLS", password: "n" } }]);
    expect(fresh.secret).toEqual({ key: "GLS", password: "n" });
  });

  it("credentials actions apply in order: another type in between replaces, the last type wins", () => {
    const { carrier, secret } = modify(
      [
        { action: "ModifyCarrier", credentials: { key: "UPS", token: "t" } },
        { action: "ModifyCarrier", credentials: { key: "GLS", password: "again" } },
      ],
      { key: "GLS", user: "u", password: "p" },
    );
    expect(secret).toEqual({ key: "GLS", password: "again" });
    expect(carrier.credentials).toEqual({ key: "GLS" });
  });

  it("400 INVALID_CREDENTIALS for credentials without a key, naming the action", () => {
    expect(() =>
      modify([
        { action: "ModifyCarrier", name: "x" },
        { action: "ModifyCarrier", credentials: { password: "p" } },
      ]),
    ).toThrow(
      expect.objectContaining({
        kind: "invalid",
        code: "INVALID_CREDENTIALS",
        field: "/actions/1/credentials/key",
      }),
    );
  });

  it.each<[string, JsonObject]>([
    ["missing", {}],
    ["not a list", { actions: { action: "ModifyCarrier" } }],
    ["empty", { actions: [] }],
  ])("actions %s: 400 ACTIONS_REQUIRED at /actions", (_, extra) => {
    expect(() => modifyCarrier(withCredentials(), undefined, { version: 1, ...extra }, later)).toThrow(
      expect.objectContaining({ kind: "invalid", code: "ACTIONS_REQUIRED", field: "/actions" }),
    );
  });

  it.each<Json>([{ action: "ModifyFacility" }, { name: "no action" }, null, "ModifyCarrier"])(
    "an unknown action %j after a valid one: 400 UNKNOWN_ACTION naming its index",
    (action) => {
      expect(() =>
        modifyCarrier(
          withCredentials(),
          undefined,
          { version: 1, actions: [{ action: "ModifyCarrier", name: "x" }, action] },
          later,
        ),
      ).toThrow(
        expect.objectContaining({ kind: "invalid", code: "UNKNOWN_ACTION", field: "/actions/1/action" }),
      );
    },
  );

  it.each<JsonObject>([
    { status: "ON" },
    { status: "active" },
    { deliveryType: "NOW" },
    { lifecycle: "beta" },
    { lifecycle: 2 },
    { defaultParcelHeightInCm: 0 },
    { defaultParcelLengthInCm: 0.99 },
    { defaultParcelWidthInCm: -35 },
    { defaultParcelWeightInGram: "1000" },
    { name: "  " },
    { name: 7 },
  ])("refuses %j: 400 INVALID_VALUE", (fields) => {
    expect(() => modify([{ action: "ModifyCarrier", ...fields }])).toThrow(
      expect.objectContaining({ kind: "invalid", code: "INVALID_VALUE" }),
    );
  });
});

it("strippedCarrier: the StrippedCarrier fields and values, nothing else", () => {
  const { carrier } = createCarrier(
    "id",
    {
      key: "GLS",
      name: "n",
      status: "ACTIVE",
      lifecycle: "BETA",
      deliveryType: "SAMEDAY",
      credentials: { key: "GLS", p: "s" },
      logoUrl: "u",
      productValueNeeded: true,
    },
    c,
  );
  expect(strippedCarrier({ ...carrier, version: 4, lastModified: "2026-11-26T00:00:00.000Z" })).toStrictEqual(
    {
      id: "id",
      key: "GLS",
      name: "n",
      version: 4,
      created: "2026-11-25T10:00:00.000Z",
      lastModified: "2026-11-26T00:00:00.000Z",
      deliveryType: "SAMEDAY",
      lifecycle: "BETA",
      status: "ACTIVE",
    },
  );
});

it("errors in an action name the action; null leaves a field as it is; optional fields are type-checked", () => {
  const carrier = createCarrier("id", { key: "GLS", name: "GLS" }, c).carrier;
  const actions = (second: Record<string, unknown>): JsonObject => ({
    version: 1,
    actions: [
      { action: "ModifyCarrier", name: "ok" },
      { action: "ModifyCarrier", ...second },
    ],
  });
  expect(() => modifyCarrier(carrier, undefined, actions({ status: "ON" }), later)).toThrow(
    expect.objectContaining({ field: "/actions/1/status" }),
  );
  expect(() => modifyCarrier(carrier, undefined, actions({ defaultParcelLengthInCm: 0 }), later)).toThrow(
    expect.objectContaining({ field: "/actions/1/defaultParcelLengthInCm" }),
  );
  expect(() => modifyCarrier(carrier, undefined, actions({ logoUrl: 5 }), later)).toThrow(
    expect.objectContaining({ field: "/actions/1/logoUrl" }),
  );
  expect(modifyCarrier(carrier, undefined, actions({ name: null }), later).carrier.name).toBe("ok");
  expect(() => createCarrier("id", { key: "GLS", name: "n", productValueNeeded: "yes" }, c)).toThrow(
    expect.objectContaining({ field: "/productValueNeeded" }),
  );
});
