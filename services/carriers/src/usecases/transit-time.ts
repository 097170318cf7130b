/** The tenant's transit time configuration (beta). */
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { AppError } from "@fop/kit/errors";
import { insertTransitTimeIfAbsent, loadTransitTime, updateTransitTime } from "../db/rows.ts";
import { putTransitTime } from "../domain/transit-time.ts";
import type { JsonObject, TransitTimeConfiguration } from "../domain/types.ts";
import { transitTimeEvent } from "../events/carriers.events.ts";
import type { CarriersDeps } from "./deps.ts";

export async function getTransitTime(
  deps: CarriersDeps,
  ctx: RequestContext,
): Promise<TransitTimeConfiguration> {
  const found = await loadTransitTime(deps.db, ctx.tenant);
  if (!found) {
    throw new AppError("not_found", {
      code: "TRANSIT_TIME_CONFIGURATION_NOT_FOUND",
      description: "No transit time configuration exists yet; PUT one first.",
    });
  }
  return found;
}

/**
 * PUT /api/configurations/transittime: creates it (200, as the reference answers) or updates it
 * on the version the body names. Of two concurrent first PUTs one creates; the other is then a
 * versioned update (409 unless it named version 1).
 */
export async function upsertTransitTime(deps: CarriersDeps, ctx: RequestContext, body: JsonObject) {
  const c = { now: deps.now(), newId: deps.newId };
  return inTransaction(deps.db, async (tx) => {
    let current = await loadTransitTime(tx, ctx.tenant, true);
    if (!current) {
      const result = putTransitTime(undefined, body, c);
      if (await insertTransitTimeIfAbsent(tx, ctx.tenant, result.config)) {
        await deps.outbox.record(tx, ctx, [transitTimeEvent("CREATED", result.config)]);
        return result;
      }
      current = await loadTransitTime(tx, ctx.tenant, true);
    }
    const result = putTransitTime(current, body, c);
    await updateTransitTime(tx, ctx.tenant, result.config);
    await deps.outbox.record(tx, ctx, [transitTimeEvent("UPDATED", result.config)]);
    return result;
  });
}
