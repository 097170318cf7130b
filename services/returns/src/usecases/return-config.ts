/** The tenant's return configuration. */
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { AppError } from "@fop/kit/errors";
import {
  insertReturnConfigurationIfAbsent,
  loadReturnConfiguration,
  updateReturnConfiguration,
} from "../db/rows.ts";
import { putReturnConfiguration, type ReturnConfiguration } from "../domain/return-config.ts";
import type { JsonObject } from "../domain/types.ts";
import { returnConfigurationEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";

export async function getReturnConfiguration(
  deps: ReturnsDeps,
  ctx: RequestContext,
): Promise<ReturnConfiguration> {
  const found = await loadReturnConfiguration(deps.db, ctx.tenant);
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
    let current = await loadReturnConfiguration(tx, ctx.tenant, true);
    if (!current) {
      const result = putReturnConfiguration(undefined, body, c);
      if (await insertReturnConfigurationIfAbsent(tx, ctx.tenant, result.config)) {
        await deps.outbox.record(tx, ctx, [returnConfigurationEvent("CREATED", ctx.tenant, result.config)]);
        return result;
      }
      current = await loadReturnConfiguration(tx, ctx.tenant, true);
    }
    const result = putReturnConfiguration(current, body, c);
    await updateReturnConfiguration(tx, ctx.tenant, result.config);
    await deps.outbox.record(tx, ctx, [returnConfigurationEvent("UPDATED", ctx.tenant, result.config)]);
    return result;
  });
}
