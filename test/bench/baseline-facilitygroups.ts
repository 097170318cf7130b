/**
 * The baseline's facility group routes: the database work the catalog does per call, without the
 * gateway, auth, RPC hop, tracing or response schemas. Its tables are the catalog migrations' own
 * (`catalog.facility_group` with its derived columns and GIN indexes, `catalog.facility`,
 * `catalog.outbox`).
 *
 * - GET /api/facilitygroups/:id: the service's findFacilityGroup, answered as its
 *   facilityGroupJson (the catalog stores columns, not a document: both sides serialize).
 * - POST /api/facilitygroups/:id/actions (the adds): in one transaction, the named facilities
 *   locked in id order (the service's lockFacilities; one missing is a 400), the group locked and
 *   read (findFacilityGroup for update), the facilities added by the service's own applyGroupAction
 *   (the group's quota), the new ones' group counts checked (groupCounts, checkGroupsPerFacility),
 *   the group written back by updateFacilityGroup (derived columns) and one outbox row; answers
 *   the group. An add that adds nothing writes nothing, as in the service. The REMOVE actions are
 *   not measured: they go through the same path without the facility locks and counts.
 */
import {
  applyGroupAction,
  checkGroupsPerFacility,
  DEFAULT_GROUP_LIMITS,
  facilityGroupJson,
  findFacilityGroup,
  type GroupAction,
  groupCounts,
  lockFacilities,
  updateFacilityGroup,
} from "@fop/catalog";
import { isUuid, newId } from "@fop/kit/ids";
import type { FastifyInstance, FastifyReply } from "fastify";
import type pg from "pg";
import { inTransaction, notFound, sendDomainError, unnamed } from "./baseline-sql.ts";

/** The catalog's DEFAULT_LOCALE (the group's `name`). */
const LOCALE = "en_US";

const sendJson = (reply: FastifyReply, json: Uint8Array) =>
  reply
    .type("application/json; charset=utf-8")
    .send(Buffer.from(json.buffer, json.byteOffset, json.byteLength));

export function facilityGroupRoutes(app: FastifyInstance, tenant: string, pool: pg.Pool): void {
  app.get<{ Params: { id: string } }>("/api/facilitygroups/:id", async (req, reply) => {
    const { id } = req.params;
    const group = isUuid(id) ? await findFacilityGroup(unnamed(pool), tenant, id, false) : undefined;
    if (!group) return notFound(reply);
    return sendJson(reply, facilityGroupJson(group, LOCALE));
  });

  app.post<{ Params: { id: string }; Body: GroupAction }>(
    "/api/facilitygroups/:id/actions",
    async (req, reply) => {
      const { id } = req.params;
      if (!isUuid(id)) return notFound(reply);
      const action = req.body;
      const refs = "facilitiesToAdd" in action ? (action.facilitiesToAdd ?? []) : [];
      try {
        const json = await inTransaction(pool, async (client) => {
          const db = unnamed(client);
          const existing = await lockFacilities(db, tenant, [...new Set(refs.filter(isUuid))].sort());
          const missing = refs.findIndex((r) => !existing.has(r));
          if (missing >= 0) return { missing };
          const current = await findFacilityGroup(db, tenant, id, true);
          if (!current) return undefined;
          const { group, added } = applyGroupAction(current, action, new Date(), DEFAULT_GROUP_LIMITS);
          if (group === current) return facilityGroupJson(current, LOCALE);
          const counts = await groupCounts(db, tenant, added, current.id);
          checkGroupsPerFacility(added, counts, DEFAULT_GROUP_LIMITS, "/facilitiesToAdd");
          await updateFacilityGroup(db, tenant, group, LOCALE);
          const doc = facilityGroupJson(group, LOCALE);
          await client.query(
            "insert into catalog.outbox (id, subject, payload, headers) values ($1, $2, $3, '{}'::jsonb)",
            [newId(), "fop.catalog.FACILITY_GROUP_UPDATED", doc],
          );
          return doc;
        });
        if (json === undefined) return notFound(reply);
        if ("missing" in json)
          return reply.code(400).send([
            {
              summary: `facilitiesToAdd/${json.missing}: no such facility`,
              code: "FACILITY_NOT_FOUND",
            },
          ]);
        return sendJson(reply, json);
      } catch (err) {
        return sendDomainError(reply, err);
      }
    },
  );
}
