/**
 * The baseline's load unit routes: the database work the loadunits service does per call, without
 * the gateway, auth, RPC hop, tracing or response schemas. Its tables are the loadunits migration's
 * own (`loadunits.load_unit`, `loadunits.pick_job_ref`, `loadunits.outbox`).
 *
 * - POST /api/loadunits: the pick jobs read from the projection (one select), then the rows and
 *   their outbox rows in one statement; documents and rows come from the service's own functions
 *   (createLoadUnit, insertLoadUnitsStatement).
 * - GET /api/loadunits/:id: one select of the stored document's text.
 * - GET /api/pickjobs/:id/loadunits: the service's two statements, the job looked up in the
 *   projection (404 when unknown), then its load units (any status, oldest first), answered as stored
 *   in the gateway's `{"loadUnits": [...], "total": n}`.
 */
import { isUuid, newId } from "@fop/kit/ids";
import { createLoadUnit, insertLoadUnitsStatement } from "@fop/loadunits";
import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { notFound, sendStored } from "./baseline-sql.ts";

const bodySchema = {
  type: "object",
  required: ["loadUnits"],
  properties: {
    loadUnits: {
      type: "array",
      minItems: 1,
      maxItems: 100,
      items: {
        type: "object",
        required: ["pickJobRefs"],
        properties: { pickJobRefs: { type: "array", minItems: 1, items: { type: "string" } } },
      },
    },
  },
} as const;

type Input = { pickJobRefs: string[] } & Record<string, never>;

export function loadUnitRoutes(app: FastifyInstance, tenant: string, pool: pg.Pool): void {
  app.post<{ Body: { loadUnits: Input[] } }>(
    "/api/loadunits",
    { schema: { body: bodySchema } },
    async (req, reply) => {
      const inputs = req.body.loadUnits;
      const refs = [...new Set(inputs.flatMap((u) => u.pickJobRefs))].filter(isUuid);
      const { rows } = await pool.query<{ id: string; facility_ref: string }>(
        "select id::text, facility_ref from loadunits.pick_job_ref where tenant_id = $1 and id = any($2::uuid[])",
        [tenant, refs],
      );
      const facility = new Map(rows.map((r) => [r.id, r.facility_ref]));
      const c = { now: new Date(), newId, defaultLocale: "en_US" };
      const units = [];
      for (const input of inputs) {
        const f = facility.get(input.pickJobRefs[0]!);
        if (!f || input.pickJobRefs.some((r) => facility.get(r) !== f)) {
          return reply.code(400).send([{ summary: "unknown pick job", code: "PICK_JOB_NOT_FOUND" }]);
        }
        units.push(
          createLoadUnit(
            input,
            { id: newId(), facilityRef: f, pickJobRefs: [...new Set(input.pickJobRefs)] },
            c,
          ),
        );
      }
      const insert = insertLoadUnitsStatement(tenant, units);
      const n = insert.params.length;
      await pool.query(
        `with written as (${insert.text}),
       added as (insert into loadunits.outbox (id, subject, payload, headers)
         select u.id, u.subject, u.payload, '{}'::jsonb
         from unnest($${n + 1}::uuid[], $${n + 2}::text[], $${n + 3}::bytea[]) as u (id, subject, payload))
       select 1`,
        [
          ...insert.params,
          units.map(() => newId()),
          units.map(() => "events.LOAD_UNIT_CREATED"),
          units.map((u) => Buffer.from(JSON.stringify(u))),
        ],
      );
      return reply.code(201).send(units);
    },
  );

  app.get<{ Params: { id: string } }>("/api/loadunits/:id", (req, reply) =>
    sendStored(
      reply,
      pool,
      "select doc::text as json from loadunits.load_unit where tenant_id = $1 and id = $2::uuid",
      tenant,
      req.params.id,
    ),
  );

  app.get<{ Params: { id: string } }>("/api/pickjobs/:id/loadunits", async (req, reply) => {
    const id = req.params.id.toLowerCase();
    const { rowCount } = isUuid(id)
      ? await pool.query(
          `select id::text as id, facility_ref as "facilityRef", status, version from loadunits.pick_job_ref
           where tenant_id = $1 and id = any($2::uuid[])`,
          [tenant, [id]],
        )
      : { rowCount: 0 };
    if (!rowCount) return notFound(reply);
    const { rows } = await pool.query<{ json: string }>(
      "select doc::text as json from loadunits.load_unit where tenant_id = $1 and pick_job_refs @> array[$2::text] order by id",
      [tenant, id],
    );
    return reply
      .type("application/json; charset=utf-8")
      .send(`{"loadUnits":[${rows.map((r) => r.json).join(",")}],"total":${rows.length}}`);
  });
}
