import * as actionSchemas from "@fop/contracts/rest/actions";
import * as addressSchemas from "@fop/contracts/rest/address";
import * as carrierServiceSchemas from "@fop/contracts/rest/carrier-services";
import * as loadUnitLineItemSchemas from "@fop/contracts/rest/load-unit-line-item";
import * as pickingSchemas from "@fop/contracts/rest/picking";
import * as pickJobSchemas from "@fop/contracts/rest/pickjobs";
import {
  PICK_JOB_ACTION_NAMES,
  PICK_JOB_ACTION_SCHEMAS,
  PICKING_PATCH_ACTION_SCHEMAS,
  PickingLoadUnitForCreation,
  PickingPatchActions,
  PickJobActionsParameter,
  PickJobForCreation,
  PickJobListQuery,
  PickJobSearchPayload,
} from "@fop/contracts/rest/pickjobs";
import * as pickRunSchemas from "@fop/contracts/rest/pickruns";
import {
  PICK_RUN_ACTION_SCHEMAS,
  PICK_RUN_PATCH_ACTION_SCHEMAS,
  PickRunActionsParameter,
  PickRunForCreation,
  PickRunPickJobsPatchAction,
} from "@fop/contracts/rest/pickruns";
import * as recordableAttributeSchemas from "@fop/contracts/rest/recordable-attribute";
import * as userSchemas from "@fop/contracts/rest/user";
import type { TSchema } from "@sinclair/typebox";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";

const ajv = new Ajv({ strict: false, allErrors: true, discriminator: true });
addFormats.default(ajv);
const compiled = new Map<TSchema, ReturnType<Ajv["compile"]>>();
const check = (schema: TSchema, value: unknown) => {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  const ok = validate(value);
  return { ok, errors: validate.errors ?? [] };
};
const valid = (schema: TSchema, value: unknown) => {
  const { ok, errors } = check(schema, value);
  expect(errors, JSON.stringify(value)).toEqual([]);
  expect(ok).toBe(true);
};
const invalid = (schema: TSchema, value: unknown) => {
  const res = check(schema, value);
  expect(res.ok, JSON.stringify(value)).toBe(false);
  return res.errors;
};

const recipient = {
  street: "Hauptstr.",
  houseNumber: "42a",
  postalCode: "40764",
  city: "Langenfeld",
  country: "DE",
  additionalAddressInfo: "to care of: Mrs. Müller",
  companyName: "Speedy Boxales Ltd.",
  email: "test@try.de",
  firstName: "Maxine",
  lastName: "Muller",
  personalTitle: "Dr.",
  salutation: "Frau",
  addressType: "POSTAL_ADDRESS",
  coordinates: { lat: 50.937531, lon: 6.960279 },
  phoneNumbers: [{ value: "+49 221 1234", type: "PHONE", label: "private" }],
};

/** A job as a client of the platform would send it (values from the reference's examples). */
const job = () => ({
  facilityRef: "Esb20gpHBL94X5NdMp3C",
  orderDate: "2020-02-03T08:45:50.525Z",
  orderRef: "LGMl2DuvPnfPoSHhYFOm",
  tenantOrderId: "R456728546",
  shortId: "AS12",
  status: "OPEN",
  preferredPickingMethods: ["SINGLE_ORDER", "BATCH"],
  paymentInformation: { currency: "EUR" },
  pickingTimes: { startLatestAt: "2024-02-03T09:45:51.525Z" },
  customAttributes: { source: "shop", nested: { n: 1 } },
  stickers: [{ key: "LGMl2DuvPnfPoSHhYFOm", nameLocalized: { en_US: "SomeName" }, priority: 100 }],
  tags: [{ id: "storage", value: "frozen" }],
  transfers: [{ id: "018fe899-80ec-70f8-9bda-f7cc904bc0bf", type: "RECEIVER" }],
  workflowInformation: { isAvailable: true, instanceRef: "64c13ab08edf48a008793cac" },
  assignedUsers: [{ username: "ada.lovelace" }, { userId: "u-1" }],
  deliveryinformation: {
    channel: "SHIPPING",
    targetTime: "2020-02-03T09:45:51.525Z",
    targetTimeBaseDate: "2020-02-03T08:45:50.525Z",
    details: {
      shipping: {
        carrierKey: "DPD",
        carrierProduct: "EXPRESS",
        carrierProductCategory: "STANDARD",
        carrierServices: ["SIGNATURE", "SATURDAY_DELIVERY"],
        serviceLevel: "DELIVERY",
        recipientaddress: recipient,
        invoiceAddress: { ...recipient, addressType: "INVOICE_ADDRESS" },
      },
    },
  },
  pickLineItems: [
    {
      article: {
        tenantArticleId: "4711",
        title: "Cologne Water",
        titleLocalized: { de_DE: "Kölnisch Wasser", en_US: "Cologne Water" },
        imageUrl: "https://example.com/resource",
        weight: 250,
        attributes: [{ key: "%%subtitle%%", value: "585er Gold", category: "descriptive", priority: 100 }],
        prices: [{ currency: "EUR", pricePerUnit: 9.99 }],
      },
      quantity: 21,
      measurementUnitKey: "liter",
      scannableCodes: ["4006381333931"],
      measurementValidation: {
        overPickHardTolerancePercentage: 20,
        overPickSoftTolerancePercentage: 15,
        shortPickHardTolerancePercentage: 15,
        shortPickSoftTolerancePercentage: 10,
      },
      allowedSubstitutes: [{ tenantArticleId: "4712", title: "Cologne Water XL", priority: 1 }],
      recordableAttributes: [
        { keyLocalized: { en_US: "country of origin" }, recordingRule: "MANDATORY", group: "general" },
      ],
      partialStockLocations: [
        {
          stockRef: "s-1",
          tenantPartialStockId: "p-1",
          quantity: 21,
          location: { locationRef: "loc-1", scannableCodes: ["A-01"] },
          stockProperties: { expiry: "2030-01-01" },
        },
      ],
      globalLineItemId: "a81f818e-2405-4570-8cde-b0c80fd3de31",
    },
    {
      article: { tenantArticleId: "0815", title: "Soap" },
      quantity: 10,
      secondaryQuantity: 0,
      measurementValidation: { shortPickHardTolerancePercentage: 50 },
      scannableCodes: ["0815", "0815-2"],
      tags: [{ id: "fragile", value: "yes" }],
    },
  ],
});

describe("PickJobForCreation", () => {
  it("accepts a realistic job", () => {
    valid(PickJobForCreation, job());
    valid(PickJobForCreation, { facilityRef: "f", orderDate: "2020-02-03T08:45:50.525Z", pickLineItems: [] });
  });

  it("rejects an unknown top-level property", () => {
    const errors = invalid(PickJobForCreation, { ...job(), priority: 1 });
    expect(errors).toContainEqual(
      expect.objectContaining({
        keyword: "additionalProperties",
        params: { additionalProperty: "priority" },
      }),
    );
  });

  it("rejects quantity 0, tags [] and a missing facilityRef", () => {
    const zero = job();
    zero.pickLineItems[1]!.quantity = 0;
    expect(invalid(PickJobForCreation, zero)).toContainEqual(
      expect.objectContaining({ instancePath: "/pickLineItems/1/quantity", keyword: "minimum" }),
    );
    expect(invalid(PickJobForCreation, { ...job(), tags: [] })).toContainEqual(
      expect.objectContaining({ instancePath: "/tags", keyword: "minItems" }),
    );
    const { facilityRef: _, ...noFacility } = job();
    expect(invalid(PickJobForCreation, noFacility)).toContainEqual(
      expect.objectContaining({ keyword: "required", params: { missingProperty: "facilityRef" } }),
    );
  });

  it("checks nested limits, patterns and closed objects", () => {
    const cases: [string, (j: ReturnType<typeof job>) => void][] = [
      ["fractional quantity", (j) => Object.assign(j.pickLineItems[0]!, { quantity: 1.5 })],
      ["unknown line property", (j) => Object.assign(j.pickLineItems[0]!, { foo: 1 })],
      [
        "51 scannable codes",
        (j) => Object.assign(j.pickLineItems[0]!, { scannableCodes: Array(51).fill("c") }),
      ],
      [
        "lower-case country",
        (j) => Object.assign(j.deliveryinformation.details.shipping.recipientaddress, { country: "de" }),
      ],
      ["unknown channel", (j) => Object.assign(j.deliveryinformation, { channel: "PIGEON" })],
      ["unknown status", (j) => Object.assign(j, { status: "DONE" })],
      ["sticker priority 0", (j) => Object.assign(j.stickers[0]!, { priority: 0 })],
      [
        "short pick tolerance > 100",
        (j) =>
          Object.assign(j.pickLineItems[1]!.measurementValidation!, {
            shortPickHardTolerancePercentage: 101,
          }),
      ],
      ["not a date-time", (j) => Object.assign(j, { orderDate: "yesterday" })],
      [
        "workflow both available and not",
        (j) => Object.assign(j.workflowInformation, { isAvailable: false }),
      ],
      ["unknown transfer type", (j) => Object.assign(j.transfers[0]!, { type: "OTHER" })],
      [
        "empty recordable attribute group",
        (j) => Object.assign(j.pickLineItems[0]!.recordableAttributes![0]!, { group: "" }),
      ],
    ];
    for (const [what, mutate] of cases) {
      const j = job();
      mutate(j);
      expect(check(PickJobForCreation, j).ok, what).toBe(false);
    }
  });
});

describe("pick job actions", () => {
  const bodies: Record<string, Record<string, unknown>> = {
    START: { name: "START", version: 1 },
    PAUSE: { name: "PAUSE", version: 1 },
    RESTART: { name: "RESTART", version: 1 },
    RESET: { name: "RESET", version: 1 },
    ABORT: { name: "ABORT", version: 1 },
    CANCEL: { name: "CANCEL", version: 1 },
    CLOSE: { name: "CLOSE", version: 1 },
    OBSOLETE: { name: "OBSOLETE", version: 1 },
    REPLACE_ASSIGNED_USERS: {
      name: "REPLACE_ASSIGNED_USERS",
      version: 2,
      assignedUsers: [{ username: "ada.lovelace" }, { userId: "u-2" }],
    },
    PICK: {
      name: "PICK",
      version: 3,
      lineItems: [
        {
          id: "climk4dcQFiPdA5ULuhS",
          picked: 20,
          pickedAt: "2024-02-03T08:45:51.525Z",
          scannedCodes: [{ code: "1245678", quantity: 7 }],
          partialStockLocations: [{ tenantPartialStockId: "p-1", picked: 20, stockEmptied: true }],
          shortPickReason: { reasonLocalized: { en_US: "damaged" } },
          substituteLineItems: [{ tenantArticleId: "4712", quantity: 1, picked: 1 }],
          customAttributes: null,
        },
      ],
    },
    MODIFY_PICK_JOB_LINE_ITEMS: {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 3,
      pickJobLineItemUpdates: [{ id: "climk4dcQFiPdA5ULuhS", status: "IN_PROGRESS", picked: 1 }],
    },
    SPLIT_LINE_ITEMS_PICK_JOB: {
      name: "SPLIT_LINE_ITEMS_PICK_JOB",
      version: 4,
      splitLineItemsInfo: [{ lineItemId: "l-1", quantity: 2, picked: 1 }],
    },
    MERGE_LINE_ITEMS_PICK_JOB: { name: "MERGE_LINE_ITEMS_PICK_JOB", version: 5, lineItemIds: ["l-1", "l-2"] },
    UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES: {
      name: "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
      version: 6,
      recordableAttributeUpdates: [{ recordableAttributeId: "r-1", value: "Germany", group: null }],
    },
    ADD_TARGET_TIME: { name: "ADD_TARGET_TIME", version: 7, targetTime: "2020-02-03T08:45:50.525Z" },
  };

  it("types the action bodies as a union discriminated by name", () => {
    const typed: PickJobActionsParameter[] = [
      { name: "START", version: 1 },
      { name: "PICK", version: 2, lineItems: [{ id: "l", picked: 1 }] },
      { name: "ADD_TARGET_TIME", version: 3, targetTime: "2020-02-03T08:45:50.525Z" },
    ];
    for (const body of typed) valid(PICK_JOB_ACTION_SCHEMAS[body.name], body);
  });

  it("has the 15 actions of the reference", () => {
    expect([...PICK_JOB_ACTION_NAMES].sort()).toEqual(Object.keys(bodies).sort());
  });

  it("validates each action body against its own schema, and rejects an extra property", () => {
    for (const [name, body] of Object.entries(bodies)) {
      const schema = PICK_JOB_ACTION_SCHEMAS[name]!;
      valid(schema, body);
      valid(PickJobActionsParameter, body);
      expect(invalid(schema, { ...body, extra: true })).toContainEqual(
        expect.objectContaining({ keyword: "additionalProperties", params: { additionalProperty: "extra" } }),
      );
      const { version: _, ...noVersion } = body;
      invalid(schema, noVersion);
      // Another action's name does not pass this action's schema.
      invalid(schema, { ...body, name: name === "START" ? "PAUSE" : "START" });
    }
  });

  it("checks the actions' own fields", () => {
    const pick = PICK_JOB_ACTION_SCHEMAS.PICK;
    invalid(pick, { name: "PICK", version: 1, lineItems: [] });
    invalid(pick, { name: "PICK", version: 1, lineItems: Array(101).fill({ id: "x" }) });
    invalid(pick, { name: "PICK", version: 1, lineItems: [{ id: "x", picked: -1 }] });
    invalid(pick, { name: "PICK", version: 1, lineItems: [{ id: "x", status: "CLOSED" }] });
    invalid(pick, { name: "PICK", version: -1, lineItems: [{ id: "x" }] });
    invalid(PICK_JOB_ACTION_SCHEMAS.MODIFY_PICK_JOB_LINE_ITEMS, {
      name: "MODIFY_PICK_JOB_LINE_ITEMS",
      version: 1,
      pickJobLineItemUpdates: [],
    });
    invalid(PICK_JOB_ACTION_SCHEMAS.ADD_TARGET_TIME, { name: "ADD_TARGET_TIME", version: 1 });
    invalid(PICK_JOB_ACTION_SCHEMAS.REPLACE_ASSIGNED_USERS, {
      name: "REPLACE_ASSIGNED_USERS",
      version: 1,
      assignedUsers: [{ name: "x" }],
    });
    // The route schema: one of the actions, by name.
    invalid(PickJobActionsParameter, { name: "FLY", version: 1 });
    invalid(PickJobActionsParameter, { version: 1 });
    invalid(PickJobActionsParameter, { name: "PICK", version: 1, lineItems: [] });
    invalid(PickJobActionsParameter, { name: "START", version: 1, extra: true });
    invalid(PickJobActionsParameter, { name: "START", version: -1 });
    invalid(PickJobActionsParameter, { name: "START", version: "1" });
  });
});

describe("deprecated PATCH /api/pickjobs/{id}", () => {
  it("checks each action against its own schema", () => {
    const body = {
      version: 3,
      actions: [
        { action: "ModifyPickLineItem", id: "l-1", picked: 2, status: "CLOSED" },
        { action: "ModifyPickJob", status: "PAUSED", preferredPickingMethods: ["BATCH"] },
        { action: "ModifyPickJobLastEditor" },
        { action: "RestartPickJob" },
        { action: "ResetPickJob" },
        { action: "AbortPickJob" },
      ],
    };
    valid(PickingPatchActions, body);
    for (const a of body.actions) {
      const schema = PICKING_PATCH_ACTION_SCHEMAS[a.action]!;
      valid(schema, a);
      invalid(schema, { ...a, extra: 1 });
      invalid(PickingPatchActions, { version: 3, actions: [{ ...a, extra: 1 }] });
    }
    invalid(PickingPatchActions, { version: 3, actions: [] });
    invalid(PickingPatchActions, { version: 3, actions: [{ action: "Fly" }] });
    invalid(PICKING_PATCH_ACTION_SCHEMAS.ModifyPickJob!, { action: "ModifyPickJob", status: "CANCELED" });
    invalid(PICKING_PATCH_ACTION_SCHEMAS.ModifyPickLineItem!, { action: "ModifyPickLineItem" });
  });
});

describe("search, list and load unit bodies", () => {
  it("accepts every query field and rejects unknown ones", () => {
    valid(PickJobSearchPayload, {
      query: {
        and: [
          { status: { in: ["OPEN", "IN_PROGRESS"] } },
          { or: [{ facilityRef: { eq: "f" } }, { orderRef: { notEq: "o" } }] },
        ],
        id: { notIn: ["a"] },
        tenantOrderId: { eq: "R1" },
        consumerName: { like: "Mu.*" },
        created: { gte: "2020-01-01T00:00:00.000Z" },
        lastModified: { after: "-P1D" },
        targetTime: { lt: "2030-01-01T00:00:00.000Z" },
        preferredPickingMethods: { contains: { eq: "BATCH" } },
        tenantArticleIds: { contains: { eq: "4711" } },
        transfers: { contains: { id: { eq: "t-1" } }, exists: true },
      },
      sort: [{ targetTime: "ASC" }],
      size: 10,
      options: { withTotal: true },
    });
    invalid(PickJobSearchPayload, { query: { shortId: { eq: "x" } } });
    invalid(PickJobSearchPayload, { query: { status: { eq: "DONE" } } });
    invalid(PickJobSearchPayload, { query: { preferredPickingMethods: { contains: { eq: "FAST" } } } });
    invalid(PickJobSearchPayload, { query: {}, sort: [{ shortId: "ASC" }] });
    invalid(PickJobSearchPayload, {});
  });

  it("list query and load unit body", () => {
    // As the gateway validates a query string: scalars coerced, a single value becomes an array.
    const query = new Ajv({ strict: false, coerceTypes: "array" }).compile(PickJobListQuery);
    for (const q of [
      { status: "OPEN,PICKED", size: 10, channel: "COLLECT", anonymized: false },
      { status: ["OPEN", "PICKED"], orderBy: "TARGET_TIME_DESC" },
      { orderBy: "-created" },
    ]) {
      expect(query(q), JSON.stringify(query.errors)).toBe(true);
    }
    for (const q of [{ size: 501 }, { channel: "PIGEON" }, { orderBy: "TARGET_TIME" }])
      expect(query(q), JSON.stringify(q)).toBe(false);
    valid(PickingLoadUnitForCreation, { codes: ["LU-1"] });
    invalid(PickingLoadUnitForCreation, { codes: [] });
    invalid(PickingLoadUnitForCreation, { codes: Array(101).fill("c") });
  });
});

describe("pick runs", () => {
  it("creation, actions and PATCH bodies", () => {
    valid(PickRunForCreation, { facilityRef: "f", pickJobRefs: ["a", "b"], pickRunType: "batch" });
    invalid(PickRunForCreation, { facilityRef: "f", pickJobRefs: [] });
    invalid(PickRunForCreation, { facilityRef: "f", pickJobRefs: ["a"], pickRunType: "zone" });
    const actions: Record<string, Record<string, unknown>> = {
      START: { name: "START", version: 1 },
      FINISH: { name: "FINISH", version: 1 },
      CANCEL: { name: "CANCEL", version: 1 },
      PAUSE: { name: "PAUSE", version: 1 },
      RESUME: { name: "RESUME", version: 1 },
      TAKE_OVER_PICK_RUN: { name: "TAKE_OVER_PICK_RUN", version: 1 },
      REMOVE_PICK_JOB: { name: "REMOVE_PICK_JOB", version: 1, payload: { pickJobId: "j-1" } },
      SPLIT_LINES_PICK_RUN: {
        name: "SPLIT_LINES_PICK_RUN",
        version: 1,
        splitLineItemsInfo: [{ lineItemId: "l", quantity: 1, picked: 0 }],
      },
    };
    expect(Object.keys(PICK_RUN_ACTION_SCHEMAS).sort()).toEqual(Object.keys(actions).sort());
    for (const [name, body] of Object.entries(actions)) {
      valid(PICK_RUN_ACTION_SCHEMAS[name]!, body);
      valid(PickRunActionsParameter, body);
      invalid(PICK_RUN_ACTION_SCHEMAS[name]!, { ...body, extra: 1 });
    }
    invalid(PICK_RUN_ACTION_SCHEMAS.REMOVE_PICK_JOB, {
      name: "REMOVE_PICK_JOB",
      version: 1,
      payload: { pickJobId: "j", other: 1 },
    });
    valid(PICK_RUN_PATCH_ACTION_SCHEMAS.ModifyPickRunLineItem, {
      action: "ModifyPickRunLineItem",
      id: "l",
      picked: 1,
      shortPickReason: { reasonLocalized: { en_US: "gone" } },
    });
    invalid(PICK_RUN_PATCH_ACTION_SCHEMAS.ModifyPickRunLineItem, {
      action: "ModifyPickRunLineItem",
      id: "l",
      secondaryPicked: -1,
    });
    invalid(PICK_RUN_PATCH_ACTION_SCHEMAS.StartPickRun, { action: "StartPickRun", id: "x" });
    valid(PickRunPickJobsPatchAction, {
      version: 1,
      actions: [{ action: "RemovePickJobFromPickRun", pickJobRef: "j" }],
    });
    invalid(PickRunPickJobsPatchAction, {
      version: 1,
      actions: [
        { action: "RemovePickJobFromPickRun", pickJobRef: "j" },
        { action: "RemovePickJobFromPickRun", pickJobRef: "k" },
      ],
    });
  });
});

const fresh = () => {
  const a = new Ajv({ strict: false });
  addFormats.default(a);
  return a;
};

describe("every exported schema", () => {
  it("compiles, and every object schema has a title or is a parameter/query object", () => {
    for (const mod of [
      pickJobSchemas,
      pickRunSchemas,
      actionSchemas,
      addressSchemas,
      carrierServiceSchemas,
      loadUnitLineItemSchemas,
      pickingSchemas,
      recordableAttributeSchemas,
      userSchemas,
    ]) {
      for (const [name, value] of Object.entries(mod)) {
        if (
          !value ||
          typeof value !== "object" ||
          Array.isArray(value) ||
          !("type" in value || "anyOf" in value || "oneOf" in value)
        )
          continue;
        if (name.endsWith("_SCHEMAS")) continue;
        const schema = value as TSchema;
        if (name === "PickJobSearchPayload" || name === "PickJobSearchQuery") continue; // one $id per Ajv
        expect(() => fresh().compile(schema), name).not.toThrow();
        if (schema.type === "object" && !/Params$|Query$/.test(name)) expect(schema.title, name).toBeTruthy();
      }
    }
  });
});
