/** The carriers service as the kit runs it: RPC and the outbox relay; no consumers. */

import { randomBytes } from "node:crypto";
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import type { ServiceModule } from "@fop/kit/service";
import { migrations, SCHEMA } from "./db/orm.ts";
import { credentialsCipher, parseCredentialsKey } from "./domain/credentials.ts";
import { carrierRoutes } from "./rpc/routes.ts";
import type { CarriersDeps } from "./usecases/deps.ts";

const config = {
  CARRIER_CREDENTIALS_KEY: env.optionalString(
    "AES-256-GCM key sealing stored carrier credentials, base64 of 32 bytes (unset: a random one per process, so credentials stored now cannot be opened after a restart; production must set it)",
  ),
};

export const carriersService: ServiceModule<CarriersDeps, typeof config> = {
  name: "carriers",
  ports: SERVICE_PORTS.carriers,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => {
    const key = cfg.CARRIER_CREDENTIALS_KEY;
    if (!key)
      base.logger.warn(
        "CARRIER_CREDENTIALS_KEY is unset: carrier credentials are sealed under a per-process key",
      );
    return {
      db: base.db,
      outbox: base.outbox,
      credentials: credentialsCipher(key ? parseCredentialsKey(key) : randomBytes(32)),
      now: base.now,
      newId: base.newId,
    };
  },
  routes: carrierRoutes,
};
