/**
 * The baseline's item return routes: the database work the returns service does per call, without
 * the gateway, auth, RPC hop, tracing or response schemas. Its tables are the returns migrations'
 * own (`returns.item_return_job` with every derived column, `returns.outbox`).
 *
 * - GET /api/itemreturnjobs/:id: one select of the stored document's text.
 * - PATCH .../itemreturns/:itemReturnId/returnedlineitems/:lineId: in one transaction, the job
 *   locked and read (the service's loadJob), the line changed by the service's own patchReturnLine
 *   (version check included: a stale itemReturnJobVersion is a 409), the job and its derived columns
 *   written back by the service's updateJob, and one outbox row; answers the whole job. The refund
 *   rule (REFUND_TRIGGERED once every line is decided) is left out: the scenario decides no line.
 */
import { isUuid, newId } from "@fop/kit/ids";
import { loadJob, patchReturnLine, updateJob } from "@fop/returns";
import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { inTransaction, notFound, sendDomainError, sendStored, unnamed } from "./baseline-sql.ts";

type LineParams = { id: string; itemReturnId: string; lineId: string };

export function itemReturnRoutes(app: FastifyInstance, tenant: string, pool: pg.Pool): void {
  app.get<{ Params: { id: string } }>("/api/itemreturnjobs/:id", (req, reply) =>
    sendStored(
      reply,
      pool,
      "select doc::text as json from returns.item_return_job where tenant_id = $1 and id = $2::uuid",
      tenant,
      req.params.id,
    ),
  );

  app.patch<{ Params: LineParams; Body: Parameters<typeof patchReturnLine>[4] }>(
    "/api/itemreturnjobs/:id/itemreturns/:itemReturnId/returnedlineitems/:lineId",
    async (req, reply) => {
      const { id, itemReturnId, lineId } = req.params;
      if (!isUuid(id)) return notFound(reply);
      try {
        const json = await inTransaction(pool, async (client) => {
          const db = unnamed(client);
          const current = await loadJob(db, tenant, id, true);
          if (!current) return undefined;
          const { job } = patchReturnLine(current, itemReturnId, "returned", lineId, req.body, {
            now: new Date(),
            newId,
          });
          await updateJob(db, tenant, job);
          const doc = JSON.stringify(job);
          await client.query(
            "insert into returns.outbox (id, subject, payload, headers) values ($1, $2, $3, '{}'::jsonb)",
            [newId(), "events.ITEM_RETURN_LINE_ITEM_UPDATED", Buffer.from(doc)],
          );
          return doc;
        });
        if (json === undefined) return notFound(reply);
        return reply.type("application/json; charset=utf-8").send(json);
      } catch (err) {
        return sendDomainError(reply, err);
      }
    },
  );
}
