export { PERMISSIONS } from "@fop/contracts/permissions";
export { buildGateway, type GatewayDeps } from "./app.ts";
export { DEV_AUDIENCE, DEV_ISSUER, loadOrCreateDevKey, signDevToken } from "./auth.ts";
export { openApiDocument } from "./cli/openapi.ts";
export { gatewayConfig } from "./config.ts";
export { createGateway, type GatewayConfig } from "./gateway.ts";
export { ROLE_PERMISSIONS } from "./permissions.ts";
