/**
 * The bare baseline: the floor the system is measured against. A plain fastify server and a `pg`
 * Pool doing the same database work as the system for the same REST calls — no auth, no RPC hop, no
 * ORM, no tracing, no response schemas. Its tables are the services' own (the catalog's `category`,
 * `facility` and `facility_group`, the picking service's `pick_job`, the loadunits service's
 * `load_unit`, the carriers service's `carrier_configuration`, the returns service's
 * `item_return_job`, the notifications service's `notification` and `notification_config`, and
 * their `outbox`es: identical columns and indexes, so inserts pay the same index upkeep), made by
 * their migrations in a separate throw-away database.
 * The pick job routes are in baseline-pickjobs.ts, the load unit routes in baseline-loadunits.ts, the
 * carrier routes in baseline-carriers.ts, the item return routes in baseline-itemreturns.ts, the
 * facility group routes in baseline-facilitygroups.ts, the notification routes in
 * baseline-notifications.ts.
 */
import { carriersService } from "@fop/carriers";
import { catalogService } from "@fop/catalog";
import { isUuid, newId } from "@fop/kit/ids";
import { createTestDatabase } from "@fop/kit/testing/db";
import { loadUnitsService } from "@fop/loadunits";
import { notificationsService } from "@fop/notifications";
import { pickingService } from "@fop/picking";
import { returnsService } from "@fop/returns";
import fastify from "fastify";
import pg from "pg";
import { carrierRoutes } from "./baseline-carriers.ts";
import { facilityGroupRoutes } from "./baseline-facilitygroups.ts";
import { itemReturnRoutes } from "./baseline-itemreturns.ts";
import { loadUnitRoutes } from "./baseline-loadunits.ts";
import { notificationRoutes } from "./baseline-notifications.ts";
import { pickJobRoutes } from "./baseline-pickjobs.ts";

/** Every baseline request acts for this tenant (the system's comes from the token). */
export const BASELINE_TENANT = "bench";

export interface Baseline {
  baseUrl: string;
  /** Admin URL of its database (seeds write there). */
  databaseUrl: string;
  close(): Promise<void>;
}

interface CategoryRow {
  id: string;
  version: number;
  created: Date;
  last_modified: Date;
  tenant_category_id: string | null;
  name_localized: Record<string, string>;
  custom_attributes: Record<string, unknown> | null;
}

interface CategoryBody {
  tenantCategoryId?: string;
  nameLocalized: Record<string, string>;
  customAttributes?: Record<string, unknown> | null;
}

const COLUMNS = "id, version, created, last_modified, tenant_category_id, name_localized, custom_attributes";

/** The REST shape of a category (what the gateway returns). */
function toJson(r: CategoryRow) {
  return {
    id: r.id,
    ...(r.tenant_category_id !== null ? { tenantCategoryId: r.tenant_category_id } : {}),
    nameLocalized: r.name_localized,
    ...(r.custom_attributes !== null ? { customAttributes: r.custom_attributes } : {}),
    created: r.created.toISOString(),
    lastModified: r.last_modified.toISOString(),
    version: r.version,
  };
}

const bodySchema = {
  type: "object",
  required: ["nameLocalized"],
  additionalProperties: false,
  properties: {
    tenantCategoryId: { type: "string", minLength: 2, maxLength: 256, pattern: "^[A-Za-z0-9_-]+$" },
    nameLocalized: { type: "object", additionalProperties: { type: "string" } },
    customAttributes: { type: ["object", "null"] },
  },
} as const;

export async function startBaseline(
  adminUrl: string,
  opts: { dbPoolMax: number; defaultLocale?: string },
): Promise<Baseline> {
  const defaultLocale = opts.defaultLocale ?? "en_US";
  const db = await createTestDatabase(adminUrl, [
    catalogService,
    pickingService,
    loadUnitsService,
    carriersService,
    returnsService,
    notificationsService,
  ]);
  const pool = new pg.Pool({ connectionString: db.serviceUrl("catalog"), max: opts.dbPoolMax });
  // The picking service has its own pool (and role) in the system too.
  const picking = new pg.Pool({ connectionString: db.serviceUrl("picking"), max: opts.dbPoolMax });
  const loadunits = new pg.Pool({ connectionString: db.serviceUrl("loadunits"), max: opts.dbPoolMax });
  const carriers = new pg.Pool({ connectionString: db.serviceUrl("carriers"), max: opts.dbPoolMax });
  const returns = new pg.Pool({ connectionString: db.serviceUrl("returns"), max: opts.dbPoolMax });
  const notifications = new pg.Pool({
    connectionString: db.serviceUrl("notifications"),
    max: opts.dbPoolMax,
  });
  // pool.end() resolves before its clients' sockets are closed, so dropping the database right after
  // can hit a closing client with "terminating connection" (57P01); without a listener the pool's
  // 'error' event would kill the process (leaving the system's child services running).
  let closing = false;
  for (const p of [pool, picking, loadunits, carriers, returns, notifications])
    p.on("error", (err) => {
      if (!closing) console.error(`[bench] baseline pool: ${err.message}`);
    });
  const app = fastify({ logger: false });

  app.get<{ Params: { id: string } }>("/api/categories/:id", async (req, reply) => {
    const { id } = req.params;
    const { rows } = isUuid(id)
      ? await pool.query<CategoryRow>(
          `select ${COLUMNS} from catalog.category where tenant_id = $1 and id = $2`,
          [BASELINE_TENANT, id],
        )
      : { rows: [] };
    if (!rows[0]) return reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);
    return toJson(rows[0]);
  });

  app.post<{ Body: CategoryBody }>(
    "/api/categories",
    { schema: { body: bodySchema } },
    async (req, reply) => {
      const b = req.body;
      // What the catalog derives for search: every localized name, and the one to sort by.
      const locales = Object.keys(b.nameLocalized).sort();
      const nameValues = [...new Set(locales.map((l) => b.nameLocalized[l]!))];
      const sortName = b.nameLocalized[defaultLocale] ?? (locales[0] ? b.nameLocalized[locales[0]]! : null);
      const now = new Date();
      try {
        // The row and its outbox row (the event) in one statement, as the catalog writes them.
        const { rows } = await pool.query<CategoryRow>(
          `with written as (insert into catalog.category (tenant_id, id, version, created, last_modified,
             tenant_category_id, name_localized, custom_attributes, sort_name, name_values)
           values ($1, $2, 1, $3, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}),
           added as (insert into catalog.outbox (id, subject, payload, headers) values ($9, $10, $11, '{}'))
           select * from written`,
          [
            BASELINE_TENANT,
            newId(),
            now,
            b.tenantCategoryId ?? null,
            b.nameLocalized,
            b.customAttributes ?? null,
            sortName,
            nameValues,
            newId(),
            "fop.catalog.CATEGORY_CREATED",
            Buffer.from(JSON.stringify(b)),
          ],
        );
        return reply.code(201).send(toJson(rows[0]!));
      } catch (err) {
        if ((err as { code?: string }).code === "23505")
          return reply
            .code(409)
            .send([{ summary: "tenantCategoryId taken", code: "TENANT_CATEGORY_ID_TAKEN" }]);
        throw err;
      }
    },
  );

  pickJobRoutes(app, BASELINE_TENANT, pool, picking);
  loadUnitRoutes(app, BASELINE_TENANT, loadunits);
  carrierRoutes(app, BASELINE_TENANT, carriers);
  itemReturnRoutes(app, BASELINE_TENANT, returns);
  facilityGroupRoutes(app, BASELINE_TENANT, pool);
  notificationRoutes(app, BASELINE_TENANT, notifications);

  let listening = false;
  const close = async () => {
    closing = true;
    if (listening) await app.close();
    await picking.end();
    await loadunits.end();
    await carriers.end();
    await returns.end();
    await notifications.end();
    await pool.end();
    await db.drop();
  };
  try {
    await app.listen({ host: "127.0.0.1", port: 0 });
    listening = true;
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { baseUrl: `http://127.0.0.1:${port}`, databaseUrl: db.url, close };
}
