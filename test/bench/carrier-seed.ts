/**
 * Seeds the carrier scenarios in SQL (both targets the same, through their databases): 200 carriers
 * whose configurations hold 20 country service mappings each (GET rotates through them), and 2,000
 * carriers with an empty configuration (version 1) that the mapping writes spread over. Documents
 * are built by the service's own functions (createCarrier, defaultConfiguration, addMapping).
 */
import { addMapping, createCarrier, defaultConfiguration } from "@fop/carriers";
import { newId } from "@fop/kit/ids";
import { BASELINE_TENANT } from "./baseline.ts";
import { mappingBody, type Target } from "./requests.ts";
import { withDatabase } from "./seed-db.ts";

export interface CarrierSeed {
  /** Carriers whose configuration has 20 mappings. */
  readIds: string[];
  /** Carriers with an empty configuration, for the mapping writes. */
  writeIds: string[];
}

const READ = 200;
const WRITE = 2000;
const MAPPINGS = 20;

export async function seedCarriers(target: Target): Promise<CarrierSeed> {
  const now = new Date();
  const c = { now, newId };
  // Each scenario seeds its own carriers (keys are unique in the tenant).
  const batch = newId().slice(-8);
  const carriers: ReturnType<typeof createCarrier>["carrier"][] = [];
  const configs: ReturnType<typeof defaultConfiguration>[] = [];
  for (let i = 0; i < READ + WRITE; i++) {
    const { carrier } = createCarrier(newId(), { key: `CUSTOM_BENCH_${batch}_${i}`, name: `Bench ${i}` }, c);
    let config = defaultConfiguration(carrier.id, newId(), now);
    if (i < READ)
      for (let m = 0; m < MAPPINGS; m++)
        config = addMapping(config, mappingBody(config.version, m) as never, c).config;
    carriers.push(carrier);
    configs.push(config);
  }
  await withDatabase(target, async (db) => {
    await db.query(
      `insert into carriers.carrier (tenant_id, id, version, created, last_modified, key, doc)
       select $1, (d->>'id')::uuid, (d->>'version')::int, (d->>'created')::timestamptz,
         (d->>'lastModified')::timestamptz, d->>'key', d from jsonb_array_elements($2::jsonb) d`,
      [BASELINE_TENANT, JSON.stringify(carriers)],
    );
    await db.query(
      `insert into carriers.carrier_configuration (tenant_id, carrier_id, id, version, doc)
       select $1, (d->>'carrierRef')::uuid, (d->>'id')::uuid, (d->>'version')::int, d
       from jsonb_array_elements($2::jsonb) d`,
      [BASELINE_TENANT, JSON.stringify(configs)],
    );
  });
  const ids = carriers.map((x) => x.id);
  return { readIds: ids.slice(0, READ), writeIds: ids.slice(READ) };
}
