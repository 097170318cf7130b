/** The tenant's handover configuration and its refuse reasons. */
import type { RequestContext } from "@fop/kit/context";
import { upsertSingleton } from "@fop/kit/db/singleton";
import { inTransaction } from "@fop/kit/db/tx";
import { AppError } from "@fop/kit/errors";
import { handoverConfigurationRows as rows } from "../db/rows.ts";
import {
  type HandoverConfiguration,
  putHandoverConfiguration,
  type RefusedReason,
  refusedReasons,
} from "../domain/handover-config.ts";
import type { JsonObject } from "../domain/types.ts";
import { handoverConfigurationEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";

export async function getHandoverConfiguration(
  deps: ReturnsDeps,
  ctx: RequestContext,
): Promise<HandoverConfiguration> {
  const found = await rows.load(deps.db, ctx.tenant);
  if (!found) {
    throw new AppError("not_found", {
      code: "HANDOVER_CONFIGURATION_NOT_FOUND",
      description: "No handover configuration exists yet; PUT one first.",
    });
  }
  return found;
}

export async function listRefusedReasons(deps: ReturnsDeps, ctx: RequestContext): Promise<RefusedReason[]> {
  return refusedReasons(await rows.load(deps.db, ctx.tenant));
}

/** PUT: creates it (created) or replaces it on the version the body names (of two first PUTs, one creates). */
export async function upsertHandoverConfiguration(deps: ReturnsDeps, ctx: RequestContext, body: JsonObject) {
  const c = { now: deps.now() };
  return inTransaction(deps.db, async (tx) => {
    const { value: config, created } = await upsertSingleton(
      {
        load: () => rows.load(tx, ctx.tenant, true),
        insertIfAbsent: (v) => rows.insertIfAbsent(tx, ctx.tenant, v),
        update: (v) => rows.update(tx, ctx.tenant, v),
      },
      (current) => putHandoverConfiguration(current, body, c),
    );
    await deps.outbox.record(tx, ctx, [
      handoverConfigurationEvent(created ? "CREATED" : "UPDATED", ctx.tenant, config),
    ]);
    return { config, created };
  });
}
