/**
 * What every resolver gets: the caller (tenant, principal, client), the service clients, URN
 * resolution and the request's loaders. Loaders batch: every load of one relationship made while a
 * level of the query resolves becomes one RPC (DataLoader), and a parent asked twice is fetched once.
 */
import type { Permission } from "@fop/contracts/permissions";
import { callOptions } from "@fop/kit/rpc/client";
import DataLoader from "dataloader";
import type { FastifyRequest } from "fastify";
import { permissionDenied } from "../permissions.ts";
import type { UrnResolver } from "../plugins/urn.ts";
import type { Clients } from "../routes/deps.ts";

export interface GraphqlDeps {
  clients: Clients;
  resolveUrn: UrnResolver;
}

export interface GqlContext {
  req: FastifyRequest;
  clients: Clients;
  resolveUrn: UrnResolver;
  loaders: Map<string, DataLoader<string, unknown>>;
}

export function createContext(req: FastifyRequest, deps: GraphqlDeps): GqlContext {
  return { req, clients: deps.clients, resolveUrn: deps.resolveUrn, loaders: new Map() };
}

/** Call options of the request (tenant, principal, client, deadline, trace). */
export const rpc = (c: GqlContext) => callOptions(c.req.ctx);

/** Throws the REST 403 (PERMISSION_DENIED) unless the caller holds every one of `perms`. */
export function need(c: GqlContext, ...perms: Permission[]): void {
  const held = c.req.ctx.principal.permissions;
  const missing = perms.filter((p) => !held.includes(p));
  if (missing.length > 0) throw permissionDenied(missing);
}

/**
 * The request's loader `name`: `batch` gets every key asked for in one tick (deduplicated) and
 * answers one value (or Error) per key, in order.
 */
export function loader<V>(
  c: GqlContext,
  name: string,
  batch: (keys: readonly string[]) => Promise<(V | Error)[]>,
): DataLoader<string, V> {
  let l = c.loaders.get(name) as DataLoader<string, V> | undefined;
  if (!l) {
    l = new DataLoader<string, V>(batch, { maxBatchSize: 500 });
    c.loaders.set(name, l as DataLoader<string, unknown>);
  }
  return l;
}
