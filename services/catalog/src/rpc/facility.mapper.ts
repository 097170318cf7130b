/**
 * Facility <-> its RPC contract (the one style of every service): the typed envelope (id, version,
 * tenantFacilityId, status and address: what other services read) with the REST read model as
 * `document_json`, and a write's REST body (a `Struct`) read into the domain's input.
 */

import type { MessageInitShape } from "@bufbuild/protobuf";
import { fromJson, type JsonObject as StructJson, toJson } from "@bufbuild/protobuf";
import { FACILITY_DETAIL_KEYS, type FacilityDetailKey } from "@fop/contracts/facilities";
import { invalid } from "@fop/kit/errors";
import type { JsonObject } from "@fop/kit/json";
import { documentJson, enumValue } from "@fop/kit/rpc/proto";
import { type FacilitySchema, FacilityStatusSchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { type Address, AddressSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import {
  type Facility,
  type FacilityChange,
  type FacilityInput,
  type FacilityStatus,
  type FacilityType,
  type LocationType,
  MODIFIABLE_FIELDS,
  type ModifiableField,
} from "../domain/facility.ts";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** An address as the platform keeps it: the common Address message (unknown keys and empty values dropped). */
function addressMessage(address: unknown): Address {
  if (!isObject(address)) throw invalid("INVALID_VALUE", "address must be an object.", "/address");
  try {
    return fromJson(AddressSchema, address as StructJson, { ignoreUnknownFields: true });
  } catch (err) {
    throw invalid("INVALID_VALUE", `address: ${(err as Error).message}`, "/address");
  }
}

const addressJson = (m: Address) => toJson(AddressSchema, m) as JsonObject;

/** The REST document of a facility (the reference's Facility: its fields, then its detail keys in their order). */
function facilityDocument(f: Facility, address: Address | undefined): JsonObject {
  const doc: JsonObject = {
    id: f.id,
    version: f.version,
    created: f.created.toISOString(),
    lastModified: f.lastModified.toISOString(),
    name: f.name,
    type: f.type,
    status: f.status,
  };
  if (f.tenantFacilityId !== null) doc.tenantFacilityId = f.tenantFacilityId;
  if (f.locationType) doc.locationType = f.locationType;
  if (address) doc.address = addressJson(address);
  if (f.customAttributes !== null) doc.customAttributes = f.customAttributes;
  for (const key of FACILITY_DETAIL_KEYS) {
    const value = f.details[key];
    if (value !== undefined) doc[key] = value;
  }
  return doc;
}

/** Facility -> its RPC message and event payload. */
export function toFacilityMessage(f: Facility): MessageInitShape<typeof FacilitySchema> {
  const address = f.address ? addressMessage(f.address) : undefined;
  return {
    id: f.id,
    version: BigInt(f.version),
    tenantFacilityId: f.tenantFacilityId ?? undefined,
    status: enumValue(FacilityStatusSchema, f.status) ?? 0,
    address,
    documentJson: documentJson(facilityDocument(f, address)),
  };
}

function objectOrNull(value: unknown, field: string): JsonObject | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw invalid("INVALID_VALUE", `${field.slice(1)} must be an object.`, field);
  return value;
}

/** A FacilityForCreation/-Replacement body (or a modification's present values) as the domain takes it. */
export function facilityInput(body: JsonObject): FacilityInput {
  const details: JsonObject = {};
  for (const key of FACILITY_DETAIL_KEYS) if (body[key] !== undefined) details[key] = body[key];
  return {
    tenantFacilityId: (body.tenantFacilityId as string | undefined) ?? null,
    name: (body.name as string | undefined) ?? "",
    type: body.type as FacilityType | undefined,
    status: body.status as FacilityStatus | undefined,
    locationType: (body.locationType as LocationType | undefined) ?? null,
    address:
      body.address === undefined || body.address === null ? null : addressJson(addressMessage(body.address)),
    customAttributes: objectOrNull(body.customAttributes, "/customAttributes"),
    details,
  };
}

const isModifiable = (k: string): k is ModifiableField =>
  (MODIFIABLE_FIELDS as readonly string[]).includes(k);
const isDetail = (k: string): k is FacilityDetailKey =>
  (FACILITY_DETAIL_KEYS as readonly string[]).includes(k);

/**
 * A PATCH body, either form, as one modification: every field it names is changed, a named null
 * clears it. The deprecated `{version, actions: [ModifyFacility]}` form merges its actions in order.
 */
export function facilityChange(body: JsonObject): { version: number; change: FacilityChange } {
  const merged: JsonObject = {};
  if ("actions" in body) {
    if (!Array.isArray(body.actions))
      throw invalid("INVALID_VALUE", "actions must be a list of ModifyFacility actions.", "/actions");
    for (const action of body.actions) {
      if (!isObject(action)) throw invalid("INVALID_VALUE", "actions holds objects.", "/actions");
      const { action: _a, ...fields } = action;
      Object.assign(merged, fields);
    }
  } else {
    const { version: _v, ...fields } = body;
    Object.assign(merged, fields);
  }
  const fields: ModifiableField[] = [];
  const detailKeys: string[] = [];
  for (const key of Object.keys(merged)) {
    if (isModifiable(key)) fields.push(key);
    else if (isDetail(key)) detailKeys.push(key);
    else throw invalid("UNKNOWN_FIELD", `${key} cannot be modified.`, `/${key}`);
  }
  const present = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== null));
  return { version: Number(body.version), change: { fields, detailKeys, values: facilityInput(present) } };
}
