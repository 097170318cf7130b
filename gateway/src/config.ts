import path from "node:path";
import { defaultServiceUrl, type ServiceName } from "@fop/contracts/service-ports";
import { ablationConfig } from "@fop/kit/ablation";
import { env } from "@fop/kit/config";
import { rpcAuthConfig } from "@fop/kit/rpc/auth";

/** The repository root (src/ and dist/ are both one level below the package). */
export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

const serviceUrl = (name: ServiceName) =>
  env.url(`Connect URL of the ${name} service`, defaultServiceUrl(name));

export const gatewayConfig = {
  HOST: env.string("interface to listen on", "127.0.0.1"),
  PORT: env.int("REST/GraphQL port", 8080, 0, 65535),
  LOG_LEVEL: env.oneOf(["trace", "debug", "info", "warn", "error", "fatal", "silent"], "log level", "info"),
  CATALOG_URL: serviceUrl("catalog"),
  AUDIT_URL: serviceUrl("audit"),
  PICKING_URL: serviceUrl("picking"),
  LOADUNITS_URL: serviceUrl("loadunits"),
  CARRIERS_URL: serviceUrl("carriers"),
  RETURNS_URL: serviceUrl("returns"),
  NOTIFICATIONS_URL: serviceUrl("notifications"),
  /** Production: verify tokens from an OIDC issuer. */
  AUTH_JWKS_URL: env.optionalString("JWKS URL of the OIDC issuer (production)"),
  AUTH_ISSUER: env.optionalString("expected `iss` of tokens"),
  AUTH_AUDIENCE: env.optionalString("expected `aud` of tokens"),
  /** Development: a local signing key that `npm run token` uses too. */
  AUTH_DEV_KEY_FILE: env.string(
    "local signing key file (used when AUTH_JWKS_URL is unset)",
    path.join(REPO_ROOT, ".data/dev-signing-key.json"),
  ),
  AUTH_TENANT_CLAIM: env.string("claim holding the tenant (also firebase.tenant is read)", "tenant"),
  AUTH_MAX_TOKEN_LIFETIME_S: env.int("longest token lifetime accepted (exp - iat), seconds", 24 * 3600, 60),
  AUTH_CLOCK_SKEW_S: env.int("clock skew tolerated on exp/nbf/iat, seconds", 30, 0, 600),
  CORS_ALLOWED_ORIGINS: env.optionalString(
    "origins allowed to call the API from a browser, comma-separated (or *); unset: none",
  ),
  RATE_LIMIT_ENABLED: env.bool("per-tenant rate limiting", true),
  RATE_LIMIT_PER_SECOND: env.int(
    "sustained requests per second per tenant, over all gateway replicas",
    1000,
    1,
  ),
  RATE_LIMIT_BURST: env.int("burst size per tenant, over all gateway replicas", 2000, 1),
  RATE_LIMIT_SYNC_MS: env.int(
    "how often each gateway replica publishes the tokens it took per tenant to the others over NATS, ms (the limit's accuracy: what the others accept within one interval); 0: no exchange, the limit holds per replica",
    100,
    0,
    10_000,
  ),
  RATE_LIMIT_SYNC_SUBJECT: env.string(
    "core NATS subject the gateway replicas exchange their rate-limit counts on (one per cluster sharing a NATS)",
    "fop.gateway.rate-limit",
  ),
  NATS_URL: env.string(
    "NATS server(s), comma-separated: the rate limit's exchange between gateway replicas (core NATS, no JetStream)",
    "nats://127.0.0.1:4222",
  ),
  RPC_TIMEOUT_MS: env.int("deadline of each service call", 10_000, 1),
  MAX_IN_FLIGHT: env.int(
    "API requests one gateway replica works on at once; one more is answered 503 SERVICE_OVERLOADED with Retry-After at once (load shedding); 0: no bound",
    256,
    0,
  ),
  DRAIN_DELAY_MS: env.int(
    "after SIGTERM, how long the gateway keeps serving, unready and closing each response's connection, before it closes its listener (keep-alive clients move to other replicas)",
    1000,
    0,
    10_000,
  ),
  /** The gateway signs its calls to the services with the cluster's RPC key. */
  RPC_AUTH_KEY: rpcAuthConfig.RPC_AUTH_KEY,
  GRAPHQL_MAX_DEPTH: env.int("deepest GraphQL document accepted", 15, 1, 100),
  GRAPHQL_MAX_COMPLEXITY: env.int(
    "highest estimated GraphQL query cost accepted (see gateway README)",
    50_000,
    1,
  ),
  GRAPHQL_INTROSPECTION: env.bool("answer GraphQL introspection queries", true),
  GRAPHQL_PERSISTED_QUERIES: env.bool("automatic persisted GraphQL queries (kept in memory)", false),
  GRAPHQL_GRAPHIQL: env.bool("serve GraphiQL at /graphiql (development)", false),
  PUBLIC_URL: env.optionalString("base URL clients use (Location headers, OpenAPI servers)"),
  RECORD_ROUTE_STATUSES_FILE: env.optionalString(
    "tests only: append each distinct `METHOD route status` answered under /api to this file",
  ),
  /** Benchmarks only: layers turned off (refused without FOP_BENCH=1, see @fop/kit/ablation). */
  ...ablationConfig,
};
