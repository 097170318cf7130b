/** The carrier registry as other services need it: does this tenant have the carrier? */

import { env } from "@fop/kit/config";
import type { RequestContext } from "@fop/kit/context";
import { existenceCheck } from "@fop/kit/registry";
import type { RpcCredentials } from "@fop/kit/rpc/auth";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { defaultServiceUrl } from "../service-ports.ts";

/** The environment of a service that checks carriers (returns: a parcel's carrierRef). */
export const carriersConfig = {
  CARRIERS_URL: env.string("carriers service (carrier registry) Connect URL", defaultServiceUrl("carriers")),
};

export interface Carriers {
  exists(ctx: RequestContext, carrierId: string): Promise<boolean>;
}

export function carrierRegistry(carriersUrl: string, credentials: RpcCredentials): Carriers {
  const carriers = createRpcClient(CarriersService, carriersUrl, credentials);
  return { exists: existenceCheck((ctx, id) => carriers.getCarrier({ id }, callOptions(ctx))) };
}
