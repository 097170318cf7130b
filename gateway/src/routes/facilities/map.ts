/** Pure REST <-> RPC mapping for facilities. */
import { fromJson, type JsonObject, type JsonValue, type MessageInitShape, toJson } from "@bufbuild/protobuf";
import { invalid } from "@fop/kit/errors";
import { lookupTable } from "@fop/kit/lookup";
import { enumName, enumValue, isoTimestamp } from "@fop/kit/rpc/proto";
import {
  FacilityLocationTypeSchema,
  type Facility as FacilityMessage,
  type FacilitySchema,
  FacilityStatusSchema,
  FacilityTypeSchema,
  type ModifyFacilityRequestSchema,
  type ReplaceFacilityRequestSchema,
} from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { AddressSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import {
  DETAIL_KEYS,
  type FacilityForCreation,
  type FacilityForReplacement,
  type FacilityPatchBody,
} from "./schemas.ts";

const addressJson = (m: FacilityMessage) =>
  m.address ? (toJson(AddressSchema, m.address) as JsonObject) : undefined;

export function toFacilityJson(m: FacilityMessage | undefined) {
  if (!m) return undefined;
  const address = addressJson(m);
  const locationType = enumName(FacilityLocationTypeSchema, m.locationType);
  return {
    id: m.id,
    version: Number(m.version),
    created: isoTimestamp(m.created),
    lastModified: isoTimestamp(m.lastModified),
    name: m.name,
    type: enumName(FacilityTypeSchema, m.type),
    status: enumName(FacilityStatusSchema, m.status),
    ...(m.tenantFacilityId !== undefined ? { tenantFacilityId: m.tenantFacilityId } : {}),
    ...(locationType ? { locationType } : {}),
    ...(address ? { address } : {}),
    ...(m.customAttributes !== undefined ? { customAttributes: m.customAttributes } : {}),
    ...pickDetails(m.details ?? {}),
  };
}

export function toStrippedFacilityJson(m: FacilityMessage) {
  const { address, ...rest } = toFacilityJson(m)!;
  const {
    customAttributes: _ca,
    phoneNumbers: _p,
    emailAddresses: _e,
    resolvedCoordinates: _c,
    resolvedTimeZone: _t,
    addressType: _a,
    ...flat
  } = address ?? {};
  return {
    id: rest.id,
    version: rest.version,
    created: rest.created,
    lastModified: rest.lastModified,
    name: rest.name,
    type: rest.type,
    status: rest.status,
    ...(rest.tenantFacilityId !== undefined ? { tenantFacilityId: rest.tenantFacilityId } : {}),
    ...flat,
  };
}

function pickDetails(src: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const k of DETAIL_KEYS) if (src[k] !== undefined) out[k] = src[k] as JsonValue;
  return out;
}

type FacilityInit = MessageInitShape<typeof FacilitySchema>;

function toFacilityInit(b: Partial<FacilityForCreation> & { type?: string }): FacilityInit {
  return {
    tenantFacilityId: b.tenantFacilityId ?? undefined,
    name: b.name ?? "",
    type: b.type ? (enumValue(FacilityTypeSchema, b.type) ?? 0) : 0,
    status: b.status ? (enumValue(FacilityStatusSchema, b.status) ?? 0) : 0,
    locationType: b.locationType ? (enumValue(FacilityLocationTypeSchema, b.locationType) ?? 0) : 0,
    address: b.address
      ? fromJson(AddressSchema, b.address as JsonObject, { ignoreUnknownFields: true })
      : undefined,
    customAttributes: (b.customAttributes as JsonObject | null | undefined) ?? undefined,
    details: pickDetails(b as Record<string, unknown>),
  };
}

export const toCreateFacilityRequest = (b: FacilityForCreation) => ({ facility: toFacilityInit(b) });

/** PUT body -> ReplaceFacility (the service removes what the body leaves out). */
export function toReplaceFacilityRequest(
  id: string,
  { version, ...fields }: FacilityForReplacement,
): MessageInitShape<typeof ReplaceFacilityRequestSchema> {
  return { id, version: BigInt(version), facility: toFacilityInit(fields) };
}

const MASK = lookupTable({
  tenantFacilityId: "tenant_facility_id",
  name: "name",
  type: "type",
  status: "status",
  locationType: "location_type",
  address: "address",
  customAttributes: "custom_attributes",
});

/**
 * Both PATCH forms -> one field-masked modification: every field the body names is changed, a
 * named null clears it. The deprecated actions form merges its ModifyFacility actions in order.
 */
export function toModifyFacilityRequest(
  id: string,
  body: FacilityPatchBody,
): MessageInitShape<typeof ModifyFacilityRequestSchema> {
  const merged: Record<string, unknown> = {};
  if ("actions" in body) {
    for (const { action: _a, ...fields } of body.actions) Object.assign(merged, fields);
  } else {
    const { version: _v, ...fields } = body;
    Object.assign(merged, fields);
  }
  const paths = Object.keys(merged).map((k) => {
    const field = MASK[k];
    if (field) return field;
    if ((DETAIL_KEYS as string[]).includes(k)) return `details.${k}`;
    throw invalid("UNKNOWN_FIELD", `${k} cannot be modified.`, `/${k}`);
  });
  const present = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== null));
  return { id, version: BigInt(body.version), facility: toFacilityInit(present), updateMask: { paths } };
}
