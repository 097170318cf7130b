/** The tenant's return configuration. */
import type { RequestContext } from "@fop/kit/context";
import { upsertSingleton } from "@fop/kit/db/singleton";
import { inTransaction } from "@fop/kit/db/tx";
import { AppError } from "@fop/kit/errors";
import { returnConfigurationRows as rows } from "../db/rows.ts";
import { putReturnConfiguration, type ReturnConfiguration } from "../domain/return-config.ts";
import type { JsonObject } from "../domain/types.ts";
import { returnConfigurationEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";

export async function getReturnConfiguration(
  deps: ReturnsDeps,
  ctx: RequestContext,
): Promise<ReturnConfiguration> {
  const found = await rows.load(deps.db, ctx.tenant);
  if (!found) {
    throw new AppError("not_found", {
      code: "RETURN_CONFIGURATION_NOT_FOUND",
      description: "No return configuration exists yet; PUT one first.",
    });
  }
  return found;
}

/** PUT: creates it (created) or replaces it on the version the body names (of two first PUTs, one creates). */
export async function upsertReturnConfiguration(deps: ReturnsDeps, ctx: RequestContext, body: JsonObject) {
  const c = { now: deps.now(), newId: deps.newId };
  return inTransaction(deps.db, async (tx) => {
    const { value: config, created } = await upsertSingleton(
      {
        load: () => rows.load(tx, ctx.tenant, true),
        insertIfAbsent: (v) => rows.insertIfAbsent(tx, ctx.tenant, v),
        update: (v) => rows.update(tx, ctx.tenant, v),
      },
      (current) => putReturnConfiguration(current, body, c).config,
    );
    await deps.outbox.record(tx, ctx, [
      returnConfigurationEvent(created ? "CREATED" : "UPDATED", ctx.tenant, config),
    ]);
    return { config, created };
  });
}
