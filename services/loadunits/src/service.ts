/**
 * The loadunits service as the kit runs it: RPC, the pick job projection's consumer; it asks picking
 * for pick jobs its projection has not seen and the catalog whether a stack's facilities exist.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import { catalogFacilities, facilitiesConfig } from "@fop/contracts/clients/facilities";
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import { AppError } from "@fop/kit/errors";
import type { RpcCredentials } from "@fop/kit/rpc/auth";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { ServiceModule } from "@fop/kit/service";
import { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { migrations, SCHEMA } from "./db/orm.ts";
import { pickJobsConsumer } from "./events/pickjobs.consumer.ts";
import { loadUnitRoutes } from "./rpc/routes.ts";
import type { LoadUnitsDeps, PickJobSource } from "./usecases/deps.ts";

const config = {
  ...facilitiesConfig,
  PICKING_URL: env.string(
    "picking service Connect URL (pick jobs the projection has not seen yet)",
    "http://127.0.0.1:7102",
  ),
  DEFAULT_LOCALE: env.string(
    "locale of name/description when a request names none (or one a map lacks)",
    "en_US",
  ),
  ICON_MAX_BYTES: env.int("largest icon accepted, bytes", 256 * 1024, 1, 16 * 1024 * 1024),
};

/**
 * One GetPickJob call for a job the projection has not seen (NOT_FOUND: no such job). The facility
 * is the message's typed `facility_ref`; a picking that does not send it yet (older than loadunits
 * during a rolling deploy: deploy picking first) makes the call 503, retryable, never a guess.
 */
export function pickingPickJobs(pickingUrl: string, credentials: RpcCredentials): PickJobSource {
  const picking = createRpcClient(PickingService, pickingUrl, credentials);
  return {
    async fetch(ctx, id) {
      try {
        const res = await picking.getPickJob({ id }, callOptions(ctx));
        const job = res.pickJob;
        if (!job) return undefined;
        if (!job.facilityRef) {
          throw new AppError("unavailable", {
            code: "PICKING_OUTDATED",
            description: "The picking service answered a pick job without its facility_ref; retry shortly.",
          });
        }
        return { id: job.id, facilityRef: job.facilityRef, status: job.status, version: Number(job.version) };
      } catch (err) {
        if (ConnectError.from(err).code === Code.NotFound) return undefined;
        throw err;
      }
    },
  };
}

export const loadUnitsService: ServiceModule<LoadUnitsDeps, typeof config> = {
  name: "loadunits",
  ports: SERVICE_PORTS.loadunits,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    outbox: base.outbox,
    pickJobs: pickingPickJobs(cfg.PICKING_URL, base.rpcCredentials),
    facilities: catalogFacilities(cfg.CATALOG_URL, base.rpcCredentials, cfg.FACILITY_CACHE_TTL_MS),
    now: base.now,
    newId: base.newId,
    defaultLocale: cfg.DEFAULT_LOCALE,
    iconMaxBytes: cfg.ICON_MAX_BYTES,
  }),
  routes: loadUnitRoutes,
  workers: (_deps, base) => [pickJobsConsumer(base)],
};
