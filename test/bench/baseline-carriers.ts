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
import { inTransaction, notFound, sendDomainError, sendStored } from "./baseline-sql.ts";

export function carrierRoutes(app: FastifyInstance, tenant: string, pool: pg.Pool): void {
  app.get<{ Params: { id: string } }>("/api/carriers/:id/configuration", (req, reply) =>
    sendStored(
      reply,
      pool,
      "select doc::text as json from carriers.carrier_configuration where tenant_id = $1 and carrier_id = $2::uuid",
      tenant,
      req.params.id,
    ),
  );

  app.post<{ Params: { id: string }; Body: Record<string, never> }>(
    "/api/carriers/:id/configuration/countryservicemappings",
    async (req, reply) => {
      const { id } = req.params;
      if (!isUuid(id)) return notFound(reply);
      try {
        const mapping = await inTransaction(pool, async (client) => {
          const { rows } = await client.query(
            "select doc from carriers.carrier_configuration where tenant_id = $1 and carrier_id = $2::uuid for update",
            [tenant, id],
          );
          if (!rows[0]) return undefined;
          const result = addMapping(rows[0].doc, req.body, { now: new Date(), newId });
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
          return result.mapping;
        });
        if (!mapping) return notFound(reply);
        return reply.code(201).send(mapping);
      } catch (err) {
        return sendDomainError(reply, err);
      }
    },
  );
}
