/**
 * URN path segments (RFC 8141) in place of ids: `urn:fft:<entity>:<field>:<value>`. The owning
 * service resolves the tenant-unique identifier to the platform id before the handler runs; an
 * unknown value is a 404.
 */

import type { RequestContext } from "@fop/kit/context";
import { AppError, invalid } from "@fop/kit/errors";
import type { FastifyInstance } from "fastify";

export const URN_NAMESPACE = "fft";

/** Resolves `value` of `entity`'s `field` to an id for the caller's tenant (throws not_found). */
export type UrnResolver = (
  ctx: Omit<RequestContext, "traceId">,
  entity: string,
  field: string,
  value: string,
) => Promise<string>;

export interface ParsedUrn {
  entity: string;
  field: string;
  value: string;
}

/** Parses `urn:fft:<entity>:<field>:<value>`; the NID and "urn" are case-insensitive (RFC 8141). */
export function parseUrn(raw: string): ParsedUrn | undefined {
  const m = /^urn:([A-Za-z0-9][A-Za-z0-9-]{0,31}):([A-Za-z]+):([A-Za-z]+):(.+)$/i.exec(raw);
  if (!m || m[1]!.toLowerCase() !== URN_NAMESPACE) return undefined;
  return { entity: m[2]!, field: m[3]!, value: m[4]! };
}

/**
 * `raw` as an id: itself, or the id its URN names (`spec.entity`/`spec.field` only) for the caller's
 * tenant. `name` is the parameter or argument the errors name.
 */
export async function idOrUrn(
  ctx: Omit<RequestContext, "traceId">,
  raw: string,
  spec: { entity: string; field: string },
  name: string,
  resolve: UrnResolver,
): Promise<string> {
  if (!/^urn:/i.test(raw)) return raw;
  const parsed = parseUrn(raw);
  if (!parsed) {
    throw invalid(
      "INVALID_URN",
      `${JSON.stringify(raw)} is not a URN of the form urn:${URN_NAMESPACE}:<entity>:<field>:<value>.`,
      name,
    );
  }
  if (parsed.entity !== spec.entity || parsed.field !== spec.field) {
    throw new AppError("not_found", {
      code: "URN_NOT_SUPPORTED",
      description: `${name} accepts urn:${URN_NAMESPACE}:${spec.entity}:${spec.field}:<value>.`,
    });
  }
  return resolve(ctx, parsed.entity, parsed.field, parsed.value);
}

export function installUrnResolution(app: FastifyInstance, resolve: UrnResolver): void {
  // The routes that list URN parameters declare them as strings in their params schema.
  app.addHook<{ Params: Record<string, string> }>("preHandler", async (req) => {
    const urns = req.routeOptions.config.urn;
    if (!urns) return;
    const params = req.params;
    for (const u of urns) {
      const raw = params[u.param];
      if (raw) params[u.param] = await idOrUrn(req.ctx, raw, u, u.param, resolve);
    }
  });
}
