/** The tenant's transit time configuration (beta). */
import type { RequestContext } from "@fop/kit/context";
import { upsertSingleton } from "@fop/kit/db/singleton";
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
    const { value: config, created } = await upsertSingleton(
      {
        load: () => loadTransitTime(tx, ctx.tenant, true),
        insertIfAbsent: (t) => insertTransitTimeIfAbsent(tx, ctx.tenant, t),
        update: (t) => updateTransitTime(tx, ctx.tenant, t),
      },
      (current) => putTransitTime(current, body, c).config,
    );
    await deps.outbox.record(tx, ctx, [transitTimeEvent(created ? "CREATED" : "UPDATED", config)]);
    return { config, created };
  });
}
