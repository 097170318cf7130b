/** The carrier registry as other services need it: does this tenant have the carrier? */
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { env } from "./config.ts";
import type { RequestContext } from "./context.ts";
import { existenceCheck } from "./registry.ts";
import type { RpcCredentials } from "./rpc/auth.ts";
import { callOptions, createRpcClient } from "./rpc/client.ts";

/** The environment of a service that checks carriers (returns: a parcel's carrierRef). */
export const carriersConfig = {
  CARRIERS_URL: env.string("carriers service (carrier registry) Connect URL", "http://127.0.0.1:7104"),
};

export interface Carriers {
  exists(ctx: RequestContext, carrierId: string): Promise<boolean>;
}

export function carrierRegistry(carriersUrl: string, credentials: RpcCredentials): Carriers {
  const carriers = createRpcClient(CarriersService, carriersUrl, credentials);
  return { exists: existenceCheck((ctx, id) => carriers.getCarrier({ id }, callOptions(ctx))) };
}
