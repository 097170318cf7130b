/**
 * What picking asks the loadunits service (the owner of load units): which pick jobs have a load
 * unit. One validation call on a write (DESIGN.md), made only when the tenant's
 * loadUnitAssignmentConfiguration requires a load unit for the change (never on the default path).
 */
import { defaultServiceUrl } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import type { RequestContext } from "@fop/kit/context";
import type { RpcCredentials } from "@fop/kit/rpc/auth";
import { callOptions, createRpcClient } from "@fop/kit/rpc/client";
import { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";

/** The environment picking needs to reach the loadunits service. */
export const loadUnitsConfig = {
  LOADUNITS_URL: env.string(
    "loadunits service Connect URL (asked only when loadUnitAssignmentConfiguration requires a load unit)",
    defaultServiceUrl("loadunits"),
  ),
};

export interface LoadUnits {
  /** Of `pickJobIds`, those with at least one AVAILABLE load unit (an OBSOLETE one is deleted). */
  pickJobsWithLoadUnits(ctx: RequestContext, pickJobIds: readonly string[]): Promise<Set<string>>;
}

/** The loadunits service over Connect (ListLoadUnitsOfPickJobs: one call, no call back to picking). */
export function loadUnitsClient(url: string, credentials: RpcCredentials): LoadUnits {
  const client = createRpcClient(LoadUnitsService, url, credentials);
  const decoder = new TextDecoder();
  return {
    async pickJobsWithLoadUnits(ctx, pickJobIds) {
      const wanted = new Set(pickJobIds.map((id) => id.toLowerCase()));
      const res = await client.listLoadUnitsOfPickJobs({ pickJobIds: [...wanted] }, callOptions(ctx));
      const found = new Set<string>();
      for (const unit of res.loadUnits) {
        if (unit.status !== "AVAILABLE") continue;
        const doc = JSON.parse(decoder.decode(unit.documentJson)) as { pickJobRefs?: unknown };
        for (const ref of Array.isArray(doc.pickJobRefs) ? doc.pickJobRefs : []) {
          if (typeof ref === "string" && wanted.has(ref.toLowerCase())) found.add(ref.toLowerCase());
        }
      }
      return new Set(pickJobIds.filter((id) => found.has(id.toLowerCase())));
    },
  };
}
