/** The returns service as the kit runs it: RPC and the outbox relay; no consumers yet. */
import { env } from "@fop/kit/config";
import { catalogFacilities } from "@fop/kit/facilities";
import { newShortId } from "@fop/kit/ids";
import type { ServiceModule } from "@fop/kit/service";
import { entities, migrations, SCHEMA } from "./db/orm.ts";
import { returnRoutes } from "./rpc/routes.ts";
import type { ReturnsDeps } from "./usecases/deps.ts";

const config = {
  CATALOG_URL: env.string("catalog service (facility registry) Connect URL", "http://127.0.0.1:7101"),
  FACILITY_CACHE_TTL_MS: env.int(
    "how long a confirmed facility is taken to exist without asking again (0: ask every time)",
    5000,
    0,
    600_000,
  ),
};

export const returnsService: ServiceModule<ReturnsDeps, typeof config> = {
  name: "returns",
  schema: SCHEMA,
  entities,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    outbox: base.outbox,
    facilities: catalogFacilities(cfg.CATALOG_URL, cfg.FACILITY_CACHE_TTL_MS),
    newShortId,
    now: base.now,
    newId: base.newId,
  }),
  routes: returnRoutes,
};
