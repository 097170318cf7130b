/** The picking service as the kit runs it. */
import { randomInt } from "node:crypto";
import { availableParallelism } from "node:os";
import { Code, ConnectError } from "@connectrpc/connect";
import { ttlCache } from "@fop/kit/cache";
import { env } from "@fop/kit/config";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { ServiceModule } from "@fop/kit/service";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { entities, migrations, SCHEMA } from "./db/orm.ts";
import { pooledRenderer } from "./documents/renderer.ts";
import { pickingRoutes } from "./rpc/routes.ts";
import type { Facilities, PickingDeps } from "./usecases/deps.ts";

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
    db: base.db,
    outbox: base.outbox,
    facilities: catalogFacilities(cfg.CATALOG_URL, cfg.FACILITY_CACHE_TTL_MS),
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
