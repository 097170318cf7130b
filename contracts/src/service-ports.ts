/**
 * Where each service listens unless told otherwise (PORT, ADMIN_PORT): its Connect RPC port (h2c)
 * and its admin port (HTTP/1.1: probes, metrics, dead letters). The same numbers are the defaults of
 * every caller's <NAME>_URL (the gateway, a service calling another), and what the launcher
 * (deploy/local) and the manifests (deploy/k8s, checked by deploy/k8s/manifests.test.ts) give each service.
 */
export const SERVICE_PORTS = {
  catalog: { rpc: 7101, admin: 7201 },
  picking: { rpc: 7102, admin: 7202 },
  loadunits: { rpc: 7103, admin: 7203 },
  carriers: { rpc: 7104, admin: 7204 },
  returns: { rpc: 7105, admin: 7205 },
  audit: { rpc: 7106, admin: 7206 },
  notifications: { rpc: 7107, admin: 7207 },
} as const;

/** The platform's services, by the names their modules, schemas and <NAME>_URL variables use. */
export type ServiceName = keyof typeof SERVICE_PORTS;

/** The default Connect URL of `service` on this host. */
export const defaultServiceUrl = (service: ServiceName): string =>
  `http://127.0.0.1:${SERVICE_PORTS[service].rpc}`;
