/**
 * "Does this tenant have entity X?" as a service asks another service's registry (the catalog's
 * facilities, the carriers service's carriers): one Get RPC, NOT_FOUND meaning no. It remembers for
 * `cacheTtlMs` the ids it confirmed: a burst of writes naming one facility (an order import) asks
 * once. Only "exists" is remembered, per tenant, so a new entity is usable at once and a deleted
 * one is refused at the latest `cacheTtlMs` later.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { ttlCache } from "./cache.ts";
import type { RequestContext } from "./context.ts";

export type ExistenceCheck = (ctx: RequestContext, id: string) => Promise<boolean>;

/** `get` is the registry's Get RPC for one id, throwing its ConnectError. */
export function existenceCheck(
  get: (ctx: RequestContext, id: string) => Promise<unknown>,
  cacheTtlMs = 0,
): ExistenceCheck {
  const known = ttlCache<true>({ ttlMs: cacheTtlMs });
  return async (ctx, id) => {
    if (!id) return false;
    const key = `${ctx.tenant}\u0000${id}`;
    if (known.get(key)) return true;
    if ((await found(() => get(ctx, id))) === undefined) return false;
    known.set(key, true);
    return true;
  };
}

/** The registry's answer, or undefined for its NOT_FOUND. */
export async function found<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (ConnectError.from(err).code === Code.NotFound) return undefined;
    throw err;
  }
}
