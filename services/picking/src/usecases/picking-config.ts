/** The tenant's picking configuration (GET/PATCH /api/configurations/picking) and the rules it sets. */
import type { RequestContext } from "@fop/kit/context";
import { upsertSingleton } from "@fop/kit/db/singleton";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import {
  insertPickingConfigurationIfAbsent,
  loadPickingConfiguration,
  updatePickingConfiguration,
} from "../db/rows.ts";
import {
  DEFAULT_PICKING_RULES,
  defaultPickingConfiguration,
  type PickingConfiguration,
  patchPickingConfiguration,
  pickingRules,
} from "../domain/picking-config.ts";
import type { JsonObject, PickingRules } from "../domain/types.ts";
import { pickingConfigurationEvent } from "../events/picking.events.ts";
import type { PickingDeps } from "./deps.ts";

/** The stored configuration, else the defaults (version 0). */
export async function getPickingConfiguration(
  deps: PickingDeps,
  ctx: RequestContext,
): Promise<PickingConfiguration> {
  return (await loadPickingConfiguration(deps.db, ctx.tenant)) ?? defaultPickingConfiguration();
}

/**
 * PATCH: the first write (naming version 0) creates it; later ones change it on the version they
 * name. Of two concurrent first writes, one creates and the other is then stale (409).
 */
export async function patchPickingConfigurationOf(
  deps: PickingDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<{ config: PickingConfiguration; created: boolean }> {
  const now = deps.now();
  return inTransaction(deps.db, async (tx) => {
    const { value: config, created } = await upsertSingleton(
      {
        load: () => loadPickingConfiguration(tx, ctx.tenant, true),
        insertIfAbsent: (v) => insertPickingConfigurationIfAbsent(tx, ctx.tenant, v),
        update: (v) => updatePickingConfiguration(tx, ctx.tenant, v),
      },
      (current) => patchPickingConfiguration(current, body, now),
    );
    await deps.outbox.record(tx, ctx, [
      pickingConfigurationEvent(created ? "CREATED" : "UPDATED", ctx.tenant, config),
    ]);
    return { config, created };
  });
}

/** The rules the tenant's configuration sets for a pick job / pick run change (read in its transaction). */
export async function tenantPickingRules(db: Db, tenant: string): Promise<PickingRules> {
  const config = await loadPickingConfiguration(db, tenant);
  return config ? pickingRules(config) : DEFAULT_PICKING_RULES;
}
