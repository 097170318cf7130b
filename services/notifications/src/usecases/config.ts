/** The notification center configuration, the tenant's ('' facility) or one facility's. */
import type { RequestContext } from "@fop/kit/context";
import { upsertSingleton } from "@fop/kit/db/singleton";
import { type Db, whenCommitted } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { AppError, notFound } from "@fop/kit/errors";
import { insertConfigIfAbsent, loadConfig, loadConfigText, updateConfig } from "../db/rows.ts";
import { applyAction, deleteChannel, type NotificationConfig, putConfig } from "../domain/config.ts";
import { typesOfChannels } from "../domain/interest.ts";
import type { JsonObject } from "../domain/types.ts";
import { configEvent } from "../events/notifications.events.ts";
import type { NotificationsDeps } from "./deps.ts";
import { dispatchLanes } from "./interest-index.ts";

/** A facility's configuration needs the facility (404 otherwise); '' is the tenant's. */
async function scope(deps: NotificationsDeps, ctx: RequestContext, facilityRef: string): Promise<string> {
  if (facilityRef && !(await deps.facilities.exists(ctx, facilityRef)))
    throw notFound("facility", facilityRef);
  return facilityRef;
}

/**
 * A configuration is written: the dispatch consumer's lanes for its channels' events are covered
 * before the commit, and the interest index reloads after it.
 */
async function channelsWritten(deps: NotificationsDeps, tx: Db, config: NotificationConfig): Promise<void> {
  await deps.dispatch.cover(tx, dispatchLanes(typesOfChannels(config.channels)));
  whenCommitted(tx, deps.interest.invalidate);
}

const missing = (facilityRef: string) =>
  new AppError("not_found", {
    code: "NOTIFICATION_CONFIG_NOT_FOUND",
    description: `No notification center configuration exists ${facilityRef ? `for facility ${facilityRef} ` : ""}yet; PUT one first.`,
  });

/** The configuration as its stored JSON text (sent on unparsed). */
export async function getConfig(deps: NotificationsDeps, ctx: RequestContext, facilityRef: string) {
  const found = await loadConfigText(deps.db, ctx.tenant, await scope(deps, ctx, facilityRef));
  if (!found) throw missing(facilityRef);
  return found;
}

/** PUT: creates it (created) or replaces it on the version the body names (of two first PUTs, one creates). */
export async function putConfiguration(
  deps: NotificationsDeps,
  ctx: RequestContext,
  facilityRef: string,
  body: JsonObject,
) {
  const ref = await scope(deps, ctx, facilityRef);
  const c = { now: deps.now(), newId: deps.newId };
  return inTransaction(deps.db, async (tx) => {
    const { value: config, created } = await upsertSingleton(
      {
        load: () => loadConfig(tx, ctx.tenant, ref, true),
        insertIfAbsent: (v) => insertConfigIfAbsent(tx, ctx.tenant, ref, v),
        update: (v) => updateConfig(tx, ctx.tenant, ref, v),
      },
      (current) => putConfig(current, body, c),
    );
    await deps.outbox.record(tx, ctx, [
      configEvent(created ? "CREATED" : "UPDATED", ctx.tenant, ref, config),
    ]);
    await channelsWritten(deps, tx, config);
    return { config, created };
  });
}

async function change(
  deps: NotificationsDeps,
  ctx: RequestContext,
  facilityRef: string,
  apply: (current: NotificationConfig) => NotificationConfig,
): Promise<NotificationConfig> {
  const ref = await scope(deps, ctx, facilityRef);
  return inTransaction(deps.db, async (tx) => {
    const current = await loadConfig(tx, ctx.tenant, ref, true);
    if (!current) throw missing(ref);
    const next = apply(current);
    await updateConfig(tx, ctx.tenant, ref, next);
    await deps.outbox.record(tx, ctx, [configEvent("UPDATED", ctx.tenant, ref, next)]);
    await channelsWritten(deps, tx, next);
    return next;
  });
}

export const configAction = (
  deps: NotificationsDeps,
  ctx: RequestContext,
  facilityRef: string,
  action: JsonObject,
) =>
  change(deps, ctx, facilityRef, (current) =>
    applyAction(current, action, { now: deps.now(), newId: deps.newId }),
  );

export const removeChannel = (
  deps: NotificationsDeps,
  ctx: RequestContext,
  facilityRef: string,
  channelId: string,
  version: number,
) =>
  change(deps, ctx, facilityRef, (current) =>
    deleteChannel(current, channelId, version, { now: deps.now(), newId: deps.newId }),
  );
