/**
 * The baseline's carrier routes: the database work the carriers service does per call, without the
 * gateway, auth, RPC hop, tracing or response schemas. Its tables are the carriers migration's own
 * (`carriers.carrier_configuration`, `carriers.outbox`).
 *
 * - GET /api/carriers/:id/configuration: one select of the stored document's text (seeded: the
 *   default-on-first-read path is not measured).
 * - POST .../countryservicemappings: in one transaction, the configuration locked, the mapping added
 *   by the service's own addMapping (version check included: a stale version is a 409), the
 *   configuration written back and one outbox row.
 */
import { addMapping } from "@fop/carriers";
import { isUuid, newId } from "@fop/kit/ids";
import type { FastifyInstance } from "fastify";
import type pg from "pg";

export function carrierRoutes(app: FastifyInstance, tenant: string, pool: pg.Pool): void {
  app.get<{ Params: { id: string } }>("/api/carriers/:id/configuration", async (req, reply) => {
    const { id } = req.params;
    const { rows } = isUuid(id)
      ? await pool.query<{ json: string }>(
          "select doc::text as json from carriers.carrier_configuration where tenant_id = $1 and carrier_id = $2::uuid",
          [tenant, id],
        )
      : { rows: [] };
    if (!rows[0]) return reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);
    return reply.type("application/json; charset=utf-8").send(rows[0].json);
  });

  app.post<{ Params: { id: string }; Body: Record<string, never> }>(
    "/api/carriers/:id/configuration/countryservicemappings",
    async (req, reply) => {
      const { id } = req.params;
      if (!isUuid(id)) return reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);
      const client = await pool.connect();
      try {
        await client.query("begin");
        const { rows } = await client.query(
          "select doc from carriers.carrier_configuration where tenant_id = $1 and carrier_id = $2::uuid for update",
          [tenant, id],
        );
        if (!rows[0]) {
          await client.query("rollback");
          return reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);
        }
        let result: ReturnType<typeof addMapping>;
        try {
          result = addMapping(rows[0].doc, req.body, { now: new Date(), newId });
        } catch (err) {
          await client.query("rollback");
          const kind = (err as { kind?: string }).kind;
          return reply.code(kind === "version_conflict" ? 409 : 400).send([{ summary: String(err) }]);
        }
        await client.query(
          "update carriers.carrier_configuration set version = $3, doc = $4::jsonb where tenant_id = $1 and carrier_id = $2::uuid",
          [tenant, id, result.config.version, JSON.stringify(result.config)],
        );
        await client.query(
          "insert into carriers.outbox (id, subject, payload, headers) values ($1, $2, $3, '{}'::jsonb)",
          [
            newId(),
            "events.CARRIER_COUNTRY_SERVICE_MAPPING_CREATED",
            Buffer.from(JSON.stringify(result.mapping)),
          ],
        );
        await client.query("commit");
        return reply.code(201).send(result.mapping);
      } catch (err) {
        await client.query("rollback").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  );
}
