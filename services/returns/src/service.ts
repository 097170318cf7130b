/** The returns service as the kit runs it: RPC and the outbox relay; no consumers yet. */
import type { ServiceModule } from "@fop/kit/service";
import { entities, migrations, SCHEMA } from "./db/orm.ts";
import { returnRoutes } from "./rpc/routes.ts";
import type { ReturnsDeps } from "./usecases/deps.ts";

const config = {};

export const returnsService: ServiceModule<ReturnsDeps, typeof config> = {
  name: "returns",
  schema: SCHEMA,
  entities,
  migrations,
  config,
  createDeps: (base) => ({ db: base.db, outbox: base.outbox, now: base.now, newId: base.newId }),
  routes: returnRoutes,
};
