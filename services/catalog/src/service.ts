/** The catalog service as the kit runs it. */
import { env } from "@fop/kit/config";
import type { ServiceModule } from "@fop/kit/service";
import { entities, migrations, SCHEMA } from "./db/orm.ts";
import { catalogRoutes } from "./rpc/routes.ts";
import type { CatalogDeps } from "./usecases/deps.ts";

const config = {
  DEFAULT_LOCALE: env.string("locale whose category name is used for sorting by name", "en_US"),
};

export const catalogService: ServiceModule<CatalogDeps, typeof config> = {
  name: "catalog",
  schema: SCHEMA,
  entities,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    outbox: base.outbox,
    defaultLocale: cfg.DEFAULT_LOCALE,
    cursors: base.cursors,
    now: base.now,
    newId: base.newId,
  }),
  routes: catalogRoutes,
};
