/**
 * The facility registry as other services need it: does this tenant have the facility (cached,
 * see @fop/kit/registry), and what is its address (asked each time: a parcel's sender).
 */
import { type JsonObject, toJson } from "@bufbuild/protobuf";
import { env } from "@fop/kit/config";
import type { RequestContext } from "@fop/kit/context";
import { invalid } from "@fop/kit/errors";
import { existenceCheck, found } from "@fop/kit/registry";
import type { RpcCredentials } from "@fop/kit/rpc/auth";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { AddressSchema } from "@fop/proto/fop/common/v1/common_pb.js";
import { defaultServiceUrl } from "../service-ports.ts";

/** The environment of a service that checks facilities (picking, returns). */
export const facilitiesConfig = {
  CATALOG_URL: env.string("catalog service (facility registry) Connect URL", defaultServiceUrl("catalog")),
  FACILITY_CACHE_TTL_MS: env.int(
    "how long a facility the catalog confirmed is taken to exist without asking again (0: always ask)",
    5000,
    0,
    600_000,
  ),
};

export interface Facilities {
  exists(ctx: RequestContext, facilityId: string): Promise<boolean>;
  /** The facility's address as the REST API shows it (FacilityAddress); undefined: no such facility or no address. */
  address(ctx: RequestContext, facilityId: string): Promise<JsonObject | undefined>;
}

/**
 * 400 FACILITY_NOT_FOUND naming the first of `refs` the tenant does not have (another tenant's id,
 * a malformed one, a URN: the catalog knows none of them by that id). `field` is the list's JSON
 * pointer (`/facilityRefs`); the error names the entry (`/facilityRefs/2`). Asked all at once.
 */
export async function requireFacilities(
  facilities: Pick<Facilities, "exists">,
  ctx: RequestContext,
  refs: readonly string[],
  field: string,
): Promise<void> {
  const known = await Promise.all(refs.map((id) => facilities.exists(ctx, id)));
  const i = known.indexOf(false);
  if (i >= 0) throw facilityNotFound(field, i, refs[i]);
}

/**
 * 400 FACILITY_NOT_FOUND for entry `i` (`ref`) of the list at JSON pointer `field`
 * (`/facilityRefs` -> `/facilityRefs/2`): the same error whichever service finds the facility missing
 * (the catalog itself, for a facility group's facilities).
 */
export const facilityNotFound = (field: string, i: number, ref: string | undefined) =>
  invalid(
    "FACILITY_NOT_FOUND",
    `${field.slice(1)}/${i}: no facility with id ${JSON.stringify(ref)} exists.`,
    `${field}/${i}`,
  );

export function catalogFacilities(
  catalogUrl: string,
  credentials: RpcCredentials,
  cacheTtlMs = 0,
): Facilities {
  const catalog = createRpcClient(CatalogService, catalogUrl, credentials);
  const get = (ctx: RequestContext, id: string) => catalog.getFacility({ id }, callOptions(ctx));
  return {
    exists: existenceCheck(get, cacheTtlMs),
    async address(ctx, id) {
      const address = id ? (await found(() => get(ctx, id)))?.facility?.address : undefined;
      return address ? (toJson(AddressSchema, address) as JsonObject) : undefined;
    },
  };
}
