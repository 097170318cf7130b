/** The system for one test file, on the suite's Postgres and NATS (see boot.ts). */
import { inject } from "vitest";
import { bootSystem, type System, type SystemOptions } from "./boot.ts";

export {
  type ApiResponse,
  eventually,
  type GatewayProcess,
  type GatewayReplicas,
  type ProcessExit,
  SERVICE_NAMES,
  type ServiceName,
  type ServiceReplica,
  type System,
  type SystemOptions,
  type TokenOptions,
} from "./boot.ts";

export const startSystem = (opts: SystemOptions = {}): Promise<System> =>
  bootSystem(
    { adminUrl: inject("adminUrl"), natsUrl: inject("natsUrl"), routeStatusDir: inject("routeStatusDir") },
    opts,
  );
