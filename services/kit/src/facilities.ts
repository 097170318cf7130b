/**
 * The facility registry as other services need it: does this tenant have the facility? One
 * GetFacility call to the catalog, remembering for `cacheTtlMs` the facilities it confirmed: a burst
 * of writes for one facility (an order import) asks once. Only "exists" is remembered, per tenant, so
 * a new facility is usable at once and a deleted one is refused at the latest `cacheTtlMs` later.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { ttlCache } from "./cache.ts";
import { env } from "./config.ts";
import type { RequestContext } from "./context.ts";
import { callOptions, createRpcClient } from "./rpc/client.ts";

/** The environment of a service that checks facilities (picking, returns). */
export const facilitiesConfig = {
  CATALOG_URL: env.string("catalog service (facility registry) Connect URL", "http://127.0.0.1:7101"),
  FACILITY_CACHE_TTL_MS: env.int(
    "how long a facility the catalog confirmed is taken to exist without asking again (0: always ask)",
    5000,
    0,
    600_000,
  ),
};

export interface Facilities {
  exists(ctx: RequestContext, facilityId: string): Promise<boolean>;
}

export function catalogFacilities(catalogUrl: string, cacheTtlMs = 0): Facilities {
  const catalog = createRpcClient(CatalogService, catalogUrl);
  const known = ttlCache<true>({ ttlMs: cacheTtlMs });
  return {
    async exists(ctx, id) {
      if (!id) return false;
      const key = `${ctx.tenant}\u0000${id}`;
      if (known.get(key)) return true;
      try {
        await catalog.getFacility({ id }, callOptions(ctx));
        known.set(key, true);
        return true;
      } catch (err) {
        if (ConnectError.from(err).code === Code.NotFound) return false;
        throw err;
      }
    },
  };
}
