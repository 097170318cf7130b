/** Starting a service in a test. */
import { inject } from "vitest";
import type { ConfigSchema } from "../config.ts";
import { createLogger } from "../logger.ts";
import { loadServiceConfig, type RunningService, type ServiceModule, startService } from "../service.ts";
import { TEST_RPC_AUTH_KEY } from "./rpc.ts";

/**
 * Starts `mod` in this process as a test needs it: free ports, the suite's NATS and RPC key, the
 * admin port's dead letters served to this host (ADMIN_LOOPBACK_TRUST), a silent logger; `env` on top (its DATABASE_URL, its own stream and subject prefix, ...).
 */
export function startTestService<D, S extends ConfigSchema>(
  mod: ServiceModule<D, S>,
  env: Record<string, string>,
): Promise<RunningService<D>> {
  return startService(
    mod,
    loadServiceConfig(mod, {
      PORT: "0",
      ADMIN_PORT: "0",
      RPC_AUTH_KEY: TEST_RPC_AUTH_KEY,
      // A developer's machine: the admin port's dead letters to this host's callers.
      ADMIN_LOOPBACK_TRUST: "true",
      NATS_URL: inject("natsUrl"),
      ...env,
    }),
    { logger: createLogger({ service: mod.name, level: "silent" }) },
  );
}
