/**
 * Carriers: creation from CarrierForCreation, the ModifyCarrier actions of PATCH, the list's
 * StrippedCarrier. Credentials are split off here: the document keeps only their `key` (the
 * credentials type); the rest is the secret the use case stores sealed and never returns.
 * Pure functions; no I/O.
 */
import { CARRIER_DELIVERY_TYPES, CARRIER_LIFECYCLES, CARRIER_STATUSES } from "@fop/contracts/carriers";
import { invalid } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import type { Carrier, ChangeContext, JsonObject } from "./types.ts";

/** The keys the reference lists; several custom carriers are told apart as CUSTOM_<name>. */
export const CARRIER_KEYS = [
  "DHL_V2",
  "DPD_CH",
  "DPD_CH_VCE",
  "ANGEL",
  "GLS",
  "FEDEX",
  "POSTNL",
  "BRING",
  "UPS",
  "POST_NORD",
  "DHL_EXPRESS",
  "CUSTOM",
] as const;
const CUSTOM_KEY = /^CUSTOM_[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export const isCarrierKey = (key: string): boolean =>
  (CARRIER_KEYS as readonly string[]).includes(key) || CUSTOM_KEY.test(key);

/** Default parcel dimensions the reference names (cm, g). */
export const PARCEL_DEFAULTS = {
  defaultParcelHeightInCm: 10,
  defaultParcelLengthInCm: 25,
  defaultParcelWidthInCm: 35,
  defaultParcelWeightInGram: 1000,
} as const;
type ParcelField = keyof typeof PARCEL_DEFAULTS;
const PARCEL_FIELDS = Object.keys(PARCEL_DEFAULTS) as ParcelField[];

/** A carrier and, when the input carried credentials, the whole credentials object to seal. */
export interface CarrierChange {
  carrier: Carrier;
  /** The credentials to store (sealed); undefined: leave the stored ones as they are. */
  secret?: JsonObject;
}

function checkEnum<T extends string>(values: readonly T[], value: unknown, field: string): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
    throw invalid("INVALID_VALUE", `${field.split("/").pop()} must be one of ${values.join(", ")}.`, field);
  }
  return value as T;
}

function checkParcelValue(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1) {
    throw invalid("INVALID_VALUE", `${field.split("/").pop()} must be a number of at least 1.`, field);
  }
  return value;
}

function checkCredentials(value: unknown, field: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  const creds = value as JsonObject;
  if (typeof creds !== "object" || Array.isArray(creds) || typeof creds.key !== "string" || !creds.key) {
    throw invalid("INVALID_CREDENTIALS", "credentials must be an object with a key.", `${field}/key`);
  }
  return creds;
}

const OPTIONAL_TYPES = {
  logoUrl: "string",
  productValueNeeded: "boolean",
  parcelLabelClassifications: "array",
};

/**
 * Copies the modifiable fields the input gives (checked; null: left as it is) onto `carrier`.
 * `at`: the input's JSON pointer in the request ("" for a creation body, "/actions/1" for an action).
 */
function applyFields(carrier: Carrier, input: JsonObject, at = ""): void {
  const target = carrier as unknown as Record<string, unknown>;
  if (input.name !== undefined && input.name !== null) {
    if (typeof input.name !== "string" || input.name.trim() === "") {
      throw invalid("INVALID_VALUE", "name must be a non-empty string.", `${at}/name`);
    }
    carrier.name = input.name;
  }
  carrier.status = checkEnum(CARRIER_STATUSES, input.status, `${at}/status`) ?? carrier.status;
  carrier.deliveryType =
    checkEnum(CARRIER_DELIVERY_TYPES, input.deliveryType, `${at}/deliveryType`) ?? carrier.deliveryType;
  carrier.lifecycle = checkEnum(CARRIER_LIFECYCLES, input.lifecycle, `${at}/lifecycle`) ?? carrier.lifecycle;
  for (const f of PARCEL_FIELDS) carrier[f] = checkParcelValue(input[f], `${at}/${f}`) ?? carrier[f];
  for (const [f, type] of Object.entries(OPTIONAL_TYPES)) {
    const value = input[f];
    if (value === undefined || value === null) continue;
    if ((type === "array" ? !Array.isArray(value) : typeof value !== type) || value === "") {
      throw invalid(
        "INVALID_VALUE",
        `${f} must be a${type === "array" ? " list" : ` ${type}`}.`,
        `${at}/${f}`,
      );
    }
    target[f] = value;
  }
}

/** POST /api/carriers: a new carrier with the reference's defaults (INACTIVE, DELIVERY, GA, parcel sizes). */
export function createCarrier(id: string, input: JsonObject, c: ChangeContext): CarrierChange {
  if (typeof input.key !== "string" || !isCarrierKey(input.key)) {
    throw invalid(
      "INVALID_CARRIER_KEY",
      `key must be one of ${CARRIER_KEYS.join(", ")} or CUSTOM_<name> (letters, digits, _ and -).`,
      "/key",
    );
  }
  if (typeof input.name !== "string") throw invalid("INVALID_VALUE", "name is required.", "/name");
  const at = c.now.toISOString();
  const carrier: Carrier = {
    id,
    version: 1,
    created: at,
    lastModified: at,
    key: input.key,
    name: input.name,
    status: "INACTIVE",
    deliveryType: "DELIVERY",
    lifecycle: "GA",
    ...PARCEL_DEFAULTS,
  };
  applyFields(carrier, input);
  const secret = checkCredentials(input.credentials, "/credentials");
  if (secret) carrier.credentials = { key: secret.key as string };
  return { carrier, secret };
}

/**
 * PATCH /api/carriers/{id}: ModifyCarrier actions, in order, on the version the body names. New
 * credentials of the same type are merged into the stored ones (a modification may send only the
 * password); credentials of another type replace them.
 */
export function modifyCarrier(
  carrier: Carrier,
  storedSecret: JsonObject | undefined,
  body: JsonObject,
  c: ChangeContext,
): CarrierChange {
  requireCurrentVersion("carrier", carrier, body.version);
  const actions = body.actions;
  if (!Array.isArray(actions) || actions.length === 0) {
    throw invalid("ACTIONS_REQUIRED", "actions must name at least one ModifyCarrier action.", "/actions");
  }
  const next: Carrier = structuredClone(carrier);
  let secret: JsonObject | undefined;
  actions.forEach((raw, i) => {
    const action = raw as JsonObject;
    if (action?.action !== "ModifyCarrier") {
      throw invalid("UNKNOWN_ACTION", "Each action must be ModifyCarrier.", `/actions/${i}/action`);
    }
    applyFields(next, action, `/actions/${i}`);
    const creds = checkCredentials(action.credentials, `/actions/${i}/credentials`);
    if (creds) {
      const base = secret ?? storedSecret;
      secret = base && base.key === creds.key ? { ...base, ...creds } : creds;
      next.credentials = { key: creds.key as string };
    }
  });
  next.version = carrier.version + 1;
  next.lastModified = c.now.toISOString();
  return { carrier: next, secret };
}

/** The list's StrippedCarrier. */
export const strippedCarrier = (c: Carrier) => ({
  id: c.id,
  key: c.key,
  name: c.name,
  version: c.version,
  created: c.created,
  lastModified: c.lastModified,
  deliveryType: c.deliveryType,
  lifecycle: c.lifecycle,
  status: c.status,
});
