/** Builds the gateway's dependencies from its configuration (main.ts, the launcher and tests). */
import type { Interceptor } from "@connectrpc/connect";
import { ablatedLayers, ablationWarning } from "@fop/kit/ablation";
import type { ConfigOf } from "@fop/kit/config";
import { AppError } from "@fop/kit/errors";
import { createLogger, type Logger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { componentCredentials, rpcKeys } from "@fop/kit/rpc/auth";
import {
  ablatedWire,
  callOptions,
  createRpcClient,
  createStreamingRpcClient,
  type RpcClientOptions,
} from "@fop/kit/rpc/client";
import { AuditService } from "@fop/proto/fop/audit/v1/audit_pb.js";
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";
import { Health, HealthCheckResponse_ServingStatus } from "@fop/proto/grpc/health/v1/health_pb.js";
import { buildGateway } from "./app.ts";
import { createVerifier } from "./auth.ts";
import type { gatewayConfig } from "./config.ts";
import { parseAllowedOrigins } from "./plugins/headers.ts";
import type { Clients } from "./routes/deps.ts";

export type GatewayConfig = ConfigOf<typeof gatewayConfig>;

export async function createGateway(
  config: GatewayConfig,
  opts: {
    logger?: Logger;
    /** Interceptors of its unary clients of the services, after the kit's own (tests record calls). */
    rpcInterceptors?: Interceptor[];
  } = {},
) {
  // First: a production configuration naming FOP_ABLATE without FOP_BENCH fails here.
  const ablation = ablatedLayers(config);
  const logger = opts.logger ?? createLogger({ service: "gateway", level: config.LOG_LEVEL });
  const warning = ablationWarning(ablation);
  if (warning) logger.warn(warning);
  const serviceUrls = {
    catalog: config.CATALOG_URL,
    audit: config.AUDIT_URL,
    picking: config.PICKING_URL,
    loadunits: config.LOADUNITS_URL,
    carriers: config.CARRIERS_URL,
    returns: config.RETURNS_URL,
    notifications: config.NOTIFICATIONS_URL,
  };
  const credentials = componentCredentials(rpcKeys(config), "gateway");
  const rpc: RpcClientOptions = {
    timeoutMs: config.RPC_TIMEOUT_MS,
    ...ablatedWire(ablation),
    ...(opts.rpcInterceptors ? { interceptors: opts.rpcInterceptors } : {}),
  };
  const clients: Clients = {
    catalog: createRpcClient(CatalogService, serviceUrls.catalog, credentials, rpc),
    audit: createRpcClient(AuditService, serviceUrls.audit, credentials, rpc),
    picking: createRpcClient(PickingService, serviceUrls.picking, credentials, rpc),
    loadunits: createRpcClient(LoadUnitsService, serviceUrls.loadunits, credentials, rpc),
    carriers: createRpcClient(CarriersService, serviceUrls.carriers, credentials, rpc),
    returns: createRpcClient(ReturnsService, serviceUrls.returns, credentials, rpc),
    notifications: createRpcClient(NotificationsService, serviceUrls.notifications, credentials, rpc),
    notificationsLive: createStreamingRpcClient(NotificationsService, serviceUrls.notifications, credentials),
  };
  const health = Object.entries(serviceUrls).map(
    ([name, url]) => [name, createRpcClient(Health, url, credentials, { ...rpc, timeoutMs: 1000 })] as const,
  );
  /** Who resolves which entity's URNs (each owner implements LookupId). */
  const owners: Record<
    string,
    (
      req: { entity: string; field: string; value: string },
      ctx: Parameters<typeof callOptions>[0],
    ) => Promise<{ id: string }>
  > = {
    category: (req, ctx) => clients.catalog.lookupId(req, callOptions(ctx)),
    facility: (req, ctx) => clients.catalog.lookupId(req, callOptions(ctx)),
    facilitygroup: (req, ctx) => clients.catalog.lookupId(req, callOptions(ctx)),
  };

  return buildGateway({
    logger,
    ablation,
    metrics: createMetrics("gateway"),
    clients,
    verify: await createVerifier({
      jwksUrl: config.AUTH_JWKS_URL,
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      devKeyFile: config.AUTH_DEV_KEY_FILE,
      tenantClaim: config.AUTH_TENANT_CLAIM,
      maxLifetimeS: config.AUTH_MAX_TOKEN_LIFETIME_S,
      clockSkewS: config.AUTH_CLOCK_SKEW_S,
    }),
    resolveUrn: async (ctx, entity, field, value) => {
      const owner = owners[entity];
      if (!owner)
        throw new AppError("not_found", { code: "URN_NOT_SUPPORTED", description: `No ${entity} URNs.` });
      return (await owner({ entity, field, value }, ctx)).id;
    },
    checkServices: async () =>
      Object.fromEntries(
        await Promise.all(
          health.map(async ([name, client]) => {
            const ok = await client
              .check({})
              .then((r) => r.status === HealthCheckResponse_ServingStatus.SERVING)
              .catch(() => false);
            return [name, ok] as const;
          }),
        ),
      ),
    rateLimit: config.RATE_LIMIT_ENABLED
      ? {
          perSecond: config.RATE_LIMIT_PER_SECOND,
          burst: config.RATE_LIMIT_BURST,
          sync:
            config.RATE_LIMIT_SYNC_MS > 0
              ? {
                  url: config.NATS_URL,
                  subject: config.RATE_LIMIT_SYNC_SUBJECT,
                  intervalMs: config.RATE_LIMIT_SYNC_MS,
                }
              : undefined,
        }
      : undefined,
    admission: { maxInFlight: config.MAX_IN_FLIGHT },
    publicUrl: config.PUBLIC_URL ?? "",
    recordRouteStatuses: config.RECORD_ROUTE_STATUSES_FILE,
    cors: { allowedOrigins: parseAllowedOrigins(config.CORS_ALLOWED_ORIGINS) },
    graphql: {
      limits: { maxDepth: config.GRAPHQL_MAX_DEPTH, maxComplexity: config.GRAPHQL_MAX_COMPLEXITY },
      introspection: config.GRAPHQL_INTROSPECTION,
      persistedQueries: config.GRAPHQL_PERSISTED_QUERIES,
      graphiql: config.GRAPHQL_GRAPHIQL,
    },
  });
}
