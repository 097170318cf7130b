/**
 * The RPC server of `npm run bench -- --rpc-retention` (rpc-retention.ts), forked by it: a kit RPC
 * server (buildRpcServer: the services' interceptors, token check and fast path) whose GetCategory
 * answers one fixed category, the size of a real one. Sends its port to the parent when it listens,
 * and exits when the parent goes away (its IPC channel closes), however the parent ended.
 */
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { rpcKeys, rpcTokenVerifier } from "@fop/kit/rpc/auth";
import { buildRpcServer, rpcPort } from "@fop/kit/rpc/server";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { RETENTION_AUTH_KEY } from "./rpc-retention.ts";

const documentJson = new TextEncoder().encode(
  JSON.stringify({
    id: "00000000-0000-4000-8000-000000000001",
    version: 3,
    nameLocalized: { en_US: "Retention", de_DE: "Retention" },
    name: "Retention",
    created: "2026-11-29T00:00:00.000Z",
    lastModified: "2026-11-29T00:00:00.000Z",
  }),
);

const server = await buildRpcServer(
  {
    service: "rpc-retention",
    logger: createLogger({ service: "rpc-retention", level: "silent" }),
    metrics: createMetrics("rpc-retention"),
    ready: async () => true,
    verify: rpcTokenVerifier(rpcKeys({ RPC_AUTH_KEY: RETENTION_AUTH_KEY })),
  },
  (router) =>
    router.service(CatalogService, {
      async getCategory(req) {
        return { category: { id: req.id, version: 3n, documentJson } };
      },
    }),
);
process.once("disconnect", () => process.exit(0));
await server.listen({ host: "127.0.0.1", port: 0 });
process.send?.(rpcPort(server));
