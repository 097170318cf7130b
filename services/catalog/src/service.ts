/** The catalog service as the kit runs it. */
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import type { ServiceModule } from "@fop/kit/service";
import { migrations, SCHEMA } from "./db/orm.ts";
import { DEFAULT_GROUP_LIMITS } from "./domain/facility-group.ts";
import { catalogRoutes } from "./rpc/routes.ts";
import type { CatalogDeps } from "./usecases/deps.ts";

const config = {
  DEFAULT_LOCALE: env.string("locale whose category and facility group names sort by name", "en_US"),
  FACILITIES_PER_GROUP: env.int(
    "facilities one facility group may hold (the reference's quota)",
    DEFAULT_GROUP_LIMITS.facilitiesPerGroup,
    1,
    100_000,
  ),
  FACILITY_GROUPS_PER_FACILITY: env.int(
    "facility groups one facility may be in",
    DEFAULT_GROUP_LIMITS.groupsPerFacility,
    1,
    10_000,
  ),
};

export const catalogService: ServiceModule<CatalogDeps, typeof config> = {
  name: "catalog",
  ports: SERVICE_PORTS.catalog,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    outbox: base.outbox,
    defaultLocale: cfg.DEFAULT_LOCALE,
    groupLimits: {
      facilitiesPerGroup: cfg.FACILITIES_PER_GROUP,
      groupsPerFacility: cfg.FACILITY_GROUPS_PER_FACILITY,
    },
    cursors: base.cursors,
    now: base.now,
    newId: base.newId,
  }),
  routes: catalogRoutes,
};
