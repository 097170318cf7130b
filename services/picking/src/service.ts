/** The picking service as the kit runs it. */

import { availableParallelism } from "node:os";
import { catalogFacilities, facilitiesConfig } from "@fop/contracts/clients/facilities";
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import { newShortId } from "@fop/kit/ids";
import type { ServiceModule } from "@fop/kit/service";
import { migrations, SCHEMA } from "./db/orm.ts";
import { pooledRenderer } from "./documents/renderer.ts";
import { loadUnitsClient, loadUnitsConfig } from "./rpc/loadunits-client.ts";
import { pickingRoutes } from "./rpc/routes.ts";
import type { PickingDeps } from "./usecases/deps.ts";

const config = {
  DOCUMENT_RENDER_WORKERS: env.int(
    "worker threads rendering pick job documents (PDF)",
    Math.max(1, availableParallelism() - 1),
    1,
    64,
  ),
  DOCUMENT_RENDERS_PER_TENANT: env.int("document renders of one tenant running at once", 1, 1, 64),
  DOCUMENT_RENDER_QUEUE_PER_TENANT: env.int(
    "document renders of one tenant waiting beyond those running (more: 429)",
    4,
    0,
    1000,
  ),
  DOCUMENT_RENDER_NICE: env.int(
    "nice value of the render threads (0-19): renders yield the CPU to request handling",
    10,
    0,
    19,
  ),
  ...facilitiesConfig,
  ...loadUnitsConfig,
};

export const pickingService: ServiceModule<PickingDeps, typeof config> = {
  name: "picking",
  ports: SERVICE_PORTS.picking,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    outbox: base.outbox,
    facilities: catalogFacilities(cfg.CATALOG_URL, base.rpcCredentials, cfg.FACILITY_CACHE_TTL_MS),
    loadUnits: loadUnitsClient(cfg.LOADUNITS_URL, base.rpcCredentials),
    cursors: base.cursors,
    now: base.now,
    newId: base.newId,
    newShortId,
    documents: pooledRenderer({
      workers: cfg.DOCUMENT_RENDER_WORKERS,
      perTenant: cfg.DOCUMENT_RENDERS_PER_TENANT,
      queuePerTenant: cfg.DOCUMENT_RENDER_QUEUE_PER_TENANT,
      nice: cfg.DOCUMENT_RENDER_NICE,
      metrics: base.metrics,
    }),
  }),
  routes: pickingRoutes,
  workers: (deps) => [
    { name: "document renderer", start: async () => {}, stop: () => deps.documents.close() },
  ],
};
