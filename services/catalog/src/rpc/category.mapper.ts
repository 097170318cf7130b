import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CategorySchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { categoryJson } from "../db/category.rows.ts";
import type { Category } from "../domain/category.ts";

/** Category -> its RPC message and event payload: the envelope (id, version, tenantCategoryId) and the read model as JSON. */
export function toCategoryMessage(c: Category): MessageInitShape<typeof CategorySchema> {
  return {
    id: c.id,
    version: BigInt(c.version),
    tenantCategoryId: c.tenantCategoryId ?? undefined,
    documentJson: categoryJson(c),
  };
}
