/** The returns service as the kit runs it: RPC and the outbox relay; no consumers yet. */

import { carrierRegistry, carriersConfig } from "@fop/contracts/clients/carriers";
import { catalogFacilities, facilitiesConfig } from "@fop/contracts/clients/facilities";
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { newShortId } from "@fop/kit/ids";
import type { ServiceModule } from "@fop/kit/service";
import { migrations, SCHEMA } from "./db/orm.ts";
import { returnRoutes } from "./rpc/routes.ts";
import type { ReturnsDeps } from "./usecases/deps.ts";

const config = { ...facilitiesConfig, ...carriersConfig };

export const returnsService: ServiceModule<ReturnsDeps, typeof config> = {
  name: "returns",
  ports: SERVICE_PORTS.returns,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    outbox: base.outbox,
    facilities: catalogFacilities(cfg.CATALOG_URL, base.rpcCredentials, cfg.FACILITY_CACHE_TTL_MS),
    carriers: carrierRegistry(cfg.CARRIERS_URL, base.rpcCredentials),
    newShortId,
    now: base.now,
    newId: base.newId,
  }),
  routes: returnRoutes,
};
