/** A facility group as RPC answers and events carry it: id, version and the read model as JSON. */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { documentJson } from "@fop/kit/rpc/proto";
import type { FacilityGroupSchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { nameIndex } from "../domain/category.ts";
import type { FacilityGroup } from "../domain/facility-group.ts";

/** The reference's FacilityGroup: `name` is the default locale's name (else the first locale's). */
export function facilityGroupJson(g: FacilityGroup, defaultLocale: string): Uint8Array {
  const name = nameIndex(g.nameLocalized, defaultLocale).sortName;
  return documentJson({
    id: g.id,
    tenantFacilityGroupId: g.tenantFacilityGroupId,
    nameLocalized: g.nameLocalized,
    ...(name !== null ? { name } : {}),
    facilityRefs: g.facilityRefs,
    facilityCount: g.facilityRefs.length,
    ...(g.customAttributes !== null ? { customAttributes: g.customAttributes } : {}),
    version: g.version,
    created: g.created.toISOString(),
    lastModified: g.lastModified.toISOString(),
  });
}

export const toFacilityGroupMessage = (
  g: FacilityGroup,
  defaultLocale: string,
): MessageInitShape<typeof FacilityGroupSchema> => ({
  id: g.id,
  version: BigInt(g.version),
  documentJson: facilityGroupJson(g, defaultLocale),
});
