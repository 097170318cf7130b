/** Pure REST -> RPC mapping for categories (fields listed explicitly); answers are the service's documents. */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  CreateCategoryRequestSchema,
  ReplaceCategoryRequestSchema,
} from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { CategoryForCreation, CategoryForUpdate } from "./schemas.ts";

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
