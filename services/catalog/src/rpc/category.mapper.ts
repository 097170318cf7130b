import type { MessageInitShape } from "@bufbuild/protobuf";
import { toTimestamp } from "@fop/kit/rpc/proto";
import type { CategorySchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { Category } from "../domain/category.ts";

/** Category -> its RPC message (fields listed explicitly). */
export function toCategoryMessage(c: Category): MessageInitShape<typeof CategorySchema> {
  return {
    id: c.id,
    version: BigInt(c.version),
    created: toTimestamp(c.created),
    lastModified: toTimestamp(c.lastModified),
    tenantCategoryId: c.tenantCategoryId ?? undefined,
    nameLocalized: c.nameLocalized,
    customAttributes: c.customAttributes ?? undefined,
  };
}
