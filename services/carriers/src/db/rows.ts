/**
 * Reading and writing rows: each entity is its read-model document plus the columns derived from
 * it in the same statement. Parameterised SQL only.
 */

import { type Db, query, type Sql } from "@fop/kit/db/sql";
import { readSnapshot } from "@fop/kit/db/tx";
import type { Carrier, CarrierConfiguration, TransitTimeConfiguration } from "../domain/types.ts";

// --- carriers ------------------------------------------------------------------------------------

/** Inserts a carrier with its sealed credentials (null: none). */
export const insertCarrierStatement = (tenant: string, c: Carrier, sealed: Buffer | null): Sql => ({
  text: `insert into carrier (tenant_id, id, version, created, last_modified, key, doc, credentials)
    values ($1, $2::uuid, $3, $4, $5, $6, $7::jsonb, $8)`,
  params: [tenant, c.id, c.version, c.created, c.lastModified, c.key, JSON.stringify(c), sealed],
  prepare: true,
});

export async function loadCarrier(
  db: Db,
  tenant: string,
  id: string,
  forUpdate = false,
): Promise<{ doc: Carrier; credentials: Buffer | null } | undefined> {
  const rows = await query<{ doc: Carrier; credentials: Buffer | null }>(db, {
    text: `select doc, credentials from carrier where tenant_id = $1 and id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

/** The document's text as stored (GET: no parse, no re-serialization). */
export async function loadCarrierJson(db: Db, tenant: string, id: string) {
  const rows = await query<{ id: string; version: number; key: string; json: string }>(db, {
    text: "select id, version, key, doc::text as json from carrier where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
  return rows[0];
}

export async function carrierExists(db: Db, tenant: string, id: string): Promise<boolean> {
  const rows = await query(db, {
    text: "select 1 from carrier where tenant_id = $1 and id = $2::uuid",
    params: [tenant, id],
    prepare: true,
  });
  return rows.length > 0;
}

/** One page by id (creation order) and the tenant's number of carriers. */
export async function listCarriers(
  db: Db,
  tenant: string,
  page: { size: number; startAfterId: string },
): Promise<{ rows: Carrier[]; total: number }> {
  const [rows, count] = await readSnapshot(db, (tx) =>
    Promise.all([
      query<{ doc: Carrier }>(tx, {
        text: "select doc from carrier where tenant_id = $1 and ($2::uuid is null or id > $2::uuid) order by id limit $3",
        params: [tenant, page.startAfterId || null, page.size],
        prepare: true,
      }),
      query<{ total: string }>(tx, {
        text: "select count(*) as total from carrier where tenant_id = $1",
        params: [tenant],
        prepare: true,
      }),
    ]),
  );
  return { rows: rows.map((r) => r.doc), total: Number(count[0]?.total ?? 0) };
}

/** Writes a changed carrier; `sealed` undefined keeps the stored credentials. */
export async function updateCarrier(db: Db, tenant: string, c: Carrier, sealed?: Buffer): Promise<void> {
  await query(db, {
    text: `update carrier set version = $3, last_modified = $4, doc = $5::jsonb,
        credentials = case when $6::bytea is null then credentials else $6::bytea end
      where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, c.id, c.version, c.lastModified, JSON.stringify(c), sealed ?? null],
    prepare: true,
  });
}

// --- configurations ------------------------------------------------------------------------------

export async function loadConfiguration(
  db: Db,
  tenant: string,
  carrierId: string,
  forUpdate = false,
): Promise<CarrierConfiguration | undefined> {
  const rows = await query<{ doc: CarrierConfiguration }>(db, {
    text: `select doc from carrier_configuration where tenant_id = $1 and carrier_id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, carrierId],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** A configuration's document as stored text, with its envelope fields. */
export interface ConfigurationJsonRow {
  id: string;
  version: number;
  carrier_ref: string;
  json: string;
}
const CONFIGURATION_JSON =
  "select id, version, carrier_id as carrier_ref, doc::text as json from carrier_configuration";

/** The configuration's text as stored (GET: no parse, no re-serialization). */
export async function loadConfigurationJson(db: Db, tenant: string, carrierId: string) {
  const rows = await query<ConfigurationJsonRow>(db, {
    text: `${CONFIGURATION_JSON} where tenant_id = $1 and carrier_id = $2::uuid`,
    params: [tenant, carrierId],
    prepare: true,
  });
  return rows[0];
}

/** The stored configurations of the tenant's carriers among `carrierIds` (well-formed uuids), as text, in carrier id order. */
export async function loadConfigurationsJson(
  db: Db,
  tenant: string,
  carrierIds: string[],
): Promise<ConfigurationJsonRow[]> {
  return query<ConfigurationJsonRow>(db, {
    text: `${CONFIGURATION_JSON} where tenant_id = $1 and carrier_id = any($2::uuid[]) order by carrier_id`,
    params: [tenant, carrierIds],
    prepare: true,
  });
}

/**
 * Inserts the configuration unless the carrier has one; true when this call inserted it. A
 * concurrent insert makes this one wait for it and then insert nothing.
 */
export async function insertConfigurationIfAbsent(
  db: Db,
  tenant: string,
  config: CarrierConfiguration,
): Promise<boolean> {
  const rows = await query(db, {
    text: `insert into carrier_configuration (tenant_id, carrier_id, id, version, doc)
      values ($1, $2::uuid, $3::uuid, $4, $5::jsonb)
      on conflict (tenant_id, carrier_id) do nothing returning 1`,
    params: [tenant, config.carrierRef, config.id, config.version, JSON.stringify(config)],
    prepare: true,
  });
  return rows.length > 0;
}

/** Writes a changed configuration (its version was checked under the row lock). */
export async function updateConfiguration(
  db: Db,
  tenant: string,
  config: CarrierConfiguration,
): Promise<void> {
  await query(db, {
    text: "update carrier_configuration set version = $3, doc = $4::jsonb where tenant_id = $1 and carrier_id = $2::uuid",
    params: [tenant, config.carrierRef, config.version, JSON.stringify(config)],
    prepare: true,
  });
}

// --- transit time --------------------------------------------------------------------------------

export async function loadTransitTime(
  db: Db,
  tenant: string,
  forUpdate = false,
): Promise<TransitTimeConfiguration | undefined> {
  const rows = await query<{ doc: TransitTimeConfiguration }>(db, {
    text: `select doc from transit_time_configuration where tenant_id = $1${forUpdate ? " for update" : ""}`,
    params: [tenant],
    prepare: true,
  });
  return rows[0]?.doc;
}

/** Inserts the tenant's configuration unless it has one (a concurrent first PUT won); true when inserted. */
export async function insertTransitTimeIfAbsent(
  db: Db,
  tenant: string,
  t: TransitTimeConfiguration,
): Promise<boolean> {
  const rows = await query(db, {
    text: `insert into transit_time_configuration (tenant_id, id, version, doc) values ($1, $2::uuid, $3, $4::jsonb)
      on conflict (tenant_id) do nothing returning 1`,
    params: [tenant, t.id, t.version, JSON.stringify(t)],
    prepare: true,
  });
  return rows.length > 0;
}

/** Writes the changed configuration (its version was checked under the row lock). */
export async function updateTransitTime(db: Db, tenant: string, t: TransitTimeConfiguration): Promise<void> {
  await query(db, {
    text: "update transit_time_configuration set version = $2, doc = $3::jsonb where tenant_id = $1",
    params: [tenant, t.version, JSON.stringify(t)],
    prepare: true,
  });
}
