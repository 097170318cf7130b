/**
 * Carrier configuration and country service mapping use cases. A carrier's configuration is
 * created (once) by whichever comes first: its first read or its first mapping write.
 */
import { batchIds } from "@fop/kit/batch";
import type { RequestContext } from "@fop/kit/context";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import {
  type ConfigurationJsonRow,
  carrierExists,
  insertConfigurationIfAbsent,
  loadConfiguration,
  loadConfigurationJson,
  loadConfigurationsJson,
  updateConfiguration,
} from "../db/rows.ts";
import { defaultConfiguration, replaceConfiguration } from "../domain/configuration.ts";
import { addMapping, findMapping, removeMapping, updateMapping } from "../domain/mapping.ts";
import type { CarrierConfiguration, CountryServiceMapping, JsonObject } from "../domain/types.ts";
import { configurationEvent, mappingEvent } from "../events/carriers.events.ts";
import type { CarriersDeps } from "./deps.ts";

const ctxOf = (deps: CarriersDeps) => ({ now: deps.now(), newId: deps.newId });

/**
 * The carrier's configuration in `tx`, locked; the default is inserted (and its event recorded)
 * when it has none. 404 for an unknown carrier. Concurrent first calls insert it once: the
 * others wait on the insert and then read the winner's row.
 */
async function lockConfiguration(
  deps: CarriersDeps,
  tx: Db,
  ctx: RequestContext,
  carrierId: string,
): Promise<CarrierConfiguration> {
  const found = isUuid(carrierId) ? await loadConfiguration(tx, ctx.tenant, carrierId, true) : undefined;
  if (found) return found;
  if (!isUuid(carrierId) || !(await carrierExists(tx, ctx.tenant, carrierId))) {
    throw notFound("carrier", carrierId);
  }
  const fresh = defaultConfiguration(carrierId.toLowerCase(), deps.newId(), deps.now());
  if (await insertConfigurationIfAbsent(tx, ctx.tenant, fresh)) {
    await deps.outbox.record(tx, ctx, [configurationEvent("CREATED", fresh)]);
    return fresh;
  }
  const winner = await loadConfiguration(tx, ctx.tenant, carrierId, true);
  if (!winner) throw notFound("carrier", carrierId);
  return winner;
}

/** A configuration as the RPC sends it: typed fields and the document's text. */
export interface StoredConfiguration {
  id: string;
  version: number;
  carrierRef: string;
  json: string;
}

const stored = (c: CarrierConfiguration): StoredConfiguration => ({
  id: c.id,
  version: c.version,
  carrierRef: c.carrierRef,
  json: JSON.stringify(c),
});

const storedRow = (row: ConfigurationJsonRow): StoredConfiguration => ({
  id: row.id,
  version: row.version,
  carrierRef: row.carrier_ref,
  json: row.json,
});

/** GET .../configuration: the stored text as it is; the first read creates the default. */
export async function readConfiguration(
  deps: CarriersDeps,
  ctx: RequestContext,
  carrierId: string,
): Promise<StoredConfiguration> {
  const row = isUuid(carrierId) ? await loadConfigurationJson(deps.db, ctx.tenant, carrierId) : undefined;
  if (row) return storedRow(row);
  return stored(await inTransaction(deps.db, (tx) => lockConfiguration(deps, tx, ctx, carrierId)));
}

/**
 * The stored configurations of many carriers in one read (GraphQL relationships), as
 * readConfiguration answers them. A read only: a carrier without a stored configuration is left
 * out (readConfiguration would create its default), as are unknown and malformed ids.
 */
export async function readConfigurations(
  deps: CarriersDeps,
  ctx: RequestContext,
  carrierIds: readonly string[],
): Promise<StoredConfiguration[]> {
  const wanted = batchIds(carrierIds, "carrier_ids");
  return wanted.length ? (await loadConfigurationsJson(deps.db, ctx.tenant, wanted)).map(storedRow) : [];
}

/** The configuration, parsed (mappings, estimates); the first read creates the default. */
export async function getConfiguration(
  deps: CarriersDeps,
  ctx: RequestContext,
  carrierId: string,
): Promise<CarrierConfiguration> {
  const found = isUuid(carrierId) ? await loadConfiguration(deps.db, ctx.tenant, carrierId) : undefined;
  return found ?? inTransaction(deps.db, (tx) => lockConfiguration(deps, tx, ctx, carrierId));
}

/** PUT .../configuration: full replacement on the version the body names. */
export async function putConfiguration(
  deps: CarriersDeps,
  ctx: RequestContext,
  carrierId: string,
  body: JsonObject,
): Promise<CarrierConfiguration> {
  return inTransaction(deps.db, async (tx) => {
    const current = await lockConfiguration(deps, tx, ctx, carrierId);
    const next = replaceConfiguration(current, body, ctxOf(deps));
    await updateConfiguration(tx, ctx.tenant, next);
    await deps.outbox.record(tx, ctx, [configurationEvent("UPDATED", next)]);
    return next;
  });
}

export async function listMappings(deps: CarriersDeps, ctx: RequestContext, carrierId: string) {
  const config = await getConfiguration(deps, ctx, carrierId);
  return { config, mappings: config.countryServiceMappings };
}

export async function getMapping(deps: CarriersDeps, ctx: RequestContext, carrierId: string, id: string) {
  const config = await getConfiguration(deps, ctx, carrierId);
  return { config, mapping: findMapping(config, id) };
}

type MappingChange = (
  config: CarrierConfiguration,
  c: ReturnType<typeof ctxOf>,
) => { config: CarrierConfiguration; mapping: CountryServiceMapping };

/** One mapping write: under the configuration's lock, its version moved, both events recorded. */
function writeMapping(
  deps: CarriersDeps,
  ctx: RequestContext,
  carrierId: string,
  kind: "CREATED" | "UPDATED" | "DELETED",
  change: MappingChange,
) {
  return inTransaction(deps.db, async (tx) => {
    const current = await lockConfiguration(deps, tx, ctx, carrierId);
    const { config, mapping } = change(current, ctxOf(deps));
    await updateConfiguration(tx, ctx.tenant, config);
    await deps.outbox.record(tx, ctx, [mappingEvent(kind, config, mapping)]);
    return { config, mapping };
  });
}

export const createMapping = (deps: CarriersDeps, ctx: RequestContext, carrierId: string, body: JsonObject) =>
  writeMapping(deps, ctx, carrierId, "CREATED", (config, c) => addMapping(config, body, c));

export const patchMapping = (
  deps: CarriersDeps,
  ctx: RequestContext,
  carrierId: string,
  id: string,
  body: JsonObject,
) => writeMapping(deps, ctx, carrierId, "UPDATED", (config, c) => updateMapping(config, id, body, c));

export const deleteMapping = (deps: CarriersDeps, ctx: RequestContext, carrierId: string, id: string) =>
  writeMapping(deps, ctx, carrierId, "DELETED", (config, c) => removeMapping(config, id, c));
