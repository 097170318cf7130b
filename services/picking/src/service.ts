/** The picking service as the kit runs it. */
import { randomInt } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { ttlCache } from "@fop/kit/cache";
import { env } from "@fop/kit/config";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { ServiceModule } from "@fop/kit/service";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { entities, migrations, SCHEMA } from "./db/orm.ts";
import { pickingRoutes } from "./rpc/routes.ts";
import type { Facilities, PickingDeps } from "./usecases/deps.ts";

const config = {
  CATALOG_URL: env.string("catalog service (facility registry) Connect URL", "http://127.0.0.1:7101"),
  FACILITY_CACHE_TTL_MS: env.int(
    "how long a facility the catalog confirmed is taken to exist without asking again (0: always ask)",
    5000,
    0,
    600_000,
  ),
};

/**
 * Facility existence through the catalog (one call per pick job creation), remembering for
 * `cacheTtlMs` the facilities it confirmed: a burst of creations for one facility (an order import)
 * asks once. Only "exists" is remembered, per tenant, so a new facility is usable at once and a
 * deleted one is refused at the latest `cacheTtlMs` later.
 */
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

/** shortId: 6 characters from an alphabet without look-alikes (0/O, 1/I/L), e.g. "K7Q2XM". */
const SHORT_ID_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const newShortId = (): string =>
  Array.from({ length: 6 }, () => SHORT_ID_ALPHABET[randomInt(SHORT_ID_ALPHABET.length)]).join("");

export const pickingService: ServiceModule<PickingDeps, typeof config> = {
  name: "picking",
  schema: SCHEMA,
  entities,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    orm: base.orm,
    outbox: base.outbox,
    facilities: catalogFacilities(cfg.CATALOG_URL, cfg.FACILITY_CACHE_TTL_MS),
    now: base.now,
    newId: base.newId,
    newShortId,
  }),
  routes: pickingRoutes,
};
