/** Pure REST <-> RPC mapping for categories (fields listed explicitly both ways). */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { isoTimestamp } from "@fop/kit/rpc/proto";
import type {
  Category as CategoryMessage,
  CreateCategoryRequestSchema,
  ReplaceCategoryRequestSchema,
} from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { CategoryForCreation, CategoryForUpdate } from "./schemas.ts";

export function toCategoryJson(m: CategoryMessage | undefined) {
  if (!m) return undefined;
  return {
    id: m.id,
    ...(m.tenantCategoryId !== undefined ? { tenantCategoryId: m.tenantCategoryId } : {}),
    nameLocalized: m.nameLocalized,
    ...(m.customAttributes !== undefined ? { customAttributes: m.customAttributes } : {}),
    created: isoTimestamp(m.created),
    lastModified: isoTimestamp(m.lastModified),
    version: Number(m.version),
  };
}

export function toCreateCategoryRequest(
  b: CategoryForCreation,
): MessageInitShape<typeof CreateCategoryRequestSchema> {
  return {
    tenantCategoryId: b.tenantCategoryId,
    nameLocalized: b.nameLocalized,
    customAttributes: b.customAttributes ?? undefined,
  };
}

export function toReplaceCategoryRequest(
  id: string,
  b: CategoryForUpdate,
): MessageInitShape<typeof ReplaceCategoryRequestSchema> {
  return {
    id,
    version: BigInt(b.version),
    tenantCategoryId: b.tenantCategoryId,
    nameLocalized: b.nameLocalized,
    customAttributes: b.customAttributes ?? undefined,
  };
}
