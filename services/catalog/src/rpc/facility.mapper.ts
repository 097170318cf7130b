import { fromJson, type JsonObject, type MessageInitShape, toJson } from "@bufbuild/protobuf";
import { enumName, enumValue, toTimestamp } from "@fop/kit/rpc/proto";
import {
  FacilityLocationTypeSchema,
  type Facility as FacilityMessage,
  type FacilitySchema,
  FacilityStatusSchema,
  FacilityTypeSchema,
} from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { AddressSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import type {
  Facility,
  FacilityInput,
  FacilityStatus,
  FacilityType,
  LocationType,
} from "../domain/facility.ts";

/** Facility -> its RPC message (address travels as the common Address message). */
export function toFacilityMessage(f: Facility): MessageInitShape<typeof FacilitySchema> {
  return {
    id: f.id,
    version: BigInt(f.version),
    created: toTimestamp(f.created),
    lastModified: toTimestamp(f.lastModified),
    tenantFacilityId: f.tenantFacilityId ?? undefined,
    name: f.name,
    type: enumValue(FacilityTypeSchema, f.type) ?? 0,
    status: enumValue(FacilityStatusSchema, f.status) ?? 0,
    locationType: f.locationType ? (enumValue(FacilityLocationTypeSchema, f.locationType) ?? 0) : 0,
    address: f.address ? fromJson(AddressSchema, f.address, { ignoreUnknownFields: true }) : undefined,
    customAttributes: f.customAttributes ?? undefined,
    details: f.details,
  };
}

/** RPC message -> the fields a client sets (id, version and timestamps are ignored). */
export function fromFacilityMessage(m: FacilityMessage | undefined): FacilityInput {
  return {
    tenantFacilityId: m?.tenantFacilityId ?? null,
    name: m?.name ?? "",
    type: m ? (enumName(FacilityTypeSchema, m.type) as FacilityType | undefined) : undefined,
    status: m ? (enumName(FacilityStatusSchema, m.status) as FacilityStatus | undefined) : undefined,
    locationType: m
      ? ((enumName(FacilityLocationTypeSchema, m.locationType) as LocationType | undefined) ?? null)
      : null,
    address: m?.address ? (toJson(AddressSchema, m.address) as JsonObject) : null,
    customAttributes: m?.customAttributes ?? null,
    details: m?.details ?? {},
  };
}
