/** The picking service as the kit runs it. */
import { randomInt } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { env } from "@fop/kit/config";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import type { ServiceModule } from "@fop/kit/service";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { entities, migrations, SCHEMA } from "./db/orm.ts";
import { pickingRoutes } from "./rpc/routes.ts";
import type { Facilities, PickingDeps } from "./usecases/deps.ts";

const config = {
  CATALOG_URL: env.string("catalog service (facility registry) Connect URL", "http://127.0.0.1:7101"),
};

/** Facility existence through the catalog (one validation call per pick job creation). */
export function catalogFacilities(catalogUrl: string): Facilities {
  const catalog = createRpcClient(CatalogService, catalogUrl);
  return {
    async exists(ctx, id) {
      if (!id) return false;
      try {
        await catalog.getFacility({ id }, callOptions(ctx));
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
    facilities: catalogFacilities(cfg.CATALOG_URL),
    now: base.now,
    newId: base.newId,
    newShortId,
  }),
  routes: pickingRoutes,
};
