/**
 * The baseline's pick job routes: the database work the picking service does per call, without the
 * gateway, auth, RPC hop, tracing, ORM or response schemas (JSON body schema only). Its tables are
 * the picking migration's own (`picking.pick_job` with every derived column and index,
 * `picking.outbox`), in the baseline's database.
 *
 * - POST /api/pickjobs: the facility check (one select on catalog.facility, where the system asks
 *   the catalog service over RPC), then one transaction: the job row with its derived columns, an
 *   outbox row with the outbox notify — the statements the service's transaction sends.
 * - POST /api/pickjobs/:id/actions: one transaction: the job row locked, the action applied by the
 *   service's own function, the row and its derived columns written back, an outbox row.
 * - GET /api/pickjobs/:id: one select of the document.
 * - POST /api/pickjobs/search: the SQL kit's runSearch produces for "facilityRef eq + status eq,
 *   sort targetTime ASC" (same text, so the same index and plan); other queries are not supported.
 *
 * The job document and its derived columns come from the service's own pure functions
 * (createPickJob, jobColumns), so both sides write the same row.
 */
import { isUuid, newId } from "@fop/kit/ids";
import { cursorCodec } from "@fop/kit/search/cursor";
import { applyPickJobAction, createPickJob, jobColumns, newShortId, TARGET_TIME_KEY } from "@fop/picking";
import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { inTransaction } from "./baseline-sql.ts";

type Json = Record<string, unknown>;

const bodySchema = {
  type: "object",
  required: ["facilityRef", "pickLineItems"],
  properties: {
    facilityRef: { type: "string" },
    orderDate: { type: "string", format: "date-time" },
    tenantOrderId: { type: "string" },
    deliveryinformation: { type: "object" },
    pickLineItems: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["article", "quantity"],
        properties: {
          article: {
            type: "object",
            required: ["tenantArticleId", "title"],
            properties: { tenantArticleId: { type: "string" }, title: { type: "string" } },
          },
          quantity: { type: "integer", minimum: 1 },
        },
      },
    },
  },
} as const;

const JOB_COLUMNS = Object.keys(
  jobColumns({ deliveryinformation: { channel: "SHIPPING" }, pickLineItems: [] } as unknown as Parameters<
    typeof jobColumns
  >[0]),
);
const INSERT_JOB = `insert into picking.pick_job (tenant_id, id, version, created, last_modified, doc, ${JOB_COLUMNS.join(", ")})
  values ($1, $2, $3, $4, $5, $6, ${JOB_COLUMNS.map((_, i) => `$${i + 7}`).join(", ")})`;

const UPDATE_JOB = `update picking.pick_job set version = $3, last_modified = $4, doc = $5,
  ${JOB_COLUMNS.map((c, i) => `${c} = $${i + 6}`).join(", ")} where tenant_id = $1 and id = $2`;

// runSearch's text for {and: [{facilityRef: {eq}}, {status: {eq}}]}, sort [{targetTime: "ASC"}].
const searchSql = (limit: number) =>
  `SELECT t.id, t.doc, ${TARGET_TIME_KEY} AS __sort_value FROM picking.pick_job t ` +
  "WHERE t.tenant_id = $1::text AND (t.facility_ref = $2::text AND t.status = $3::text) " +
  `ORDER BY ${TARGET_TIME_KEY} ASC NULLS LAST, t.id ASC LIMIT ${limit + 1}`;

interface SearchBody {
  query: { and: [{ facilityRef: { eq: string } }, { status: { eq: string } }] };
  size?: number;
}

const searchSchema = {
  type: "object",
  required: ["query"],
  properties: {
    query: {
      type: "object",
      required: ["and"],
      properties: { and: { type: "array", minItems: 2, maxItems: 2 } },
    },
    sort: { type: "array" },
    size: { type: "integer", minimum: 1, maximum: 250 },
  },
} as const;

/** Signed like the service's cursors (the same HMAC work per page). */
const cursors = cursorCodec();
const cursor = (r: { id: string; __sort_value: Date } | undefined) =>
  r ? cursors.encode({ sort: "targetTime", dir: "ASC", value: r.__sort_value.toISOString(), id: r.id }) : "";

/** The outbox row of an event, as kit's Outbox records it. */
const recordEvent = (client: pg.PoolClient, event: string, doc: string) =>
  client.query("insert into picking.outbox (id, subject, payload, headers) values ($1, $2, $3, $4)", [
    newId(),
    `fop.picking.${event}`,
    Buffer.from(doc),
    "{}",
  ]);

/** Registers the pick job routes for `tenant`; `catalog` and `picking` are the two services' pools. */
export function pickJobRoutes(
  app: FastifyInstance,
  tenant: string,
  catalog: pg.Pool,
  picking: pg.Pool,
): void {
  const user = { userId: "bench-user", username: "bench-user" };

  app.post<{ Body: Json }>("/api/pickjobs", { schema: { body: bodySchema } }, async (req, reply) => {
    const facilityRef = req.body.facilityRef as string;
    const { rowCount } = isUuid(facilityRef)
      ? await catalog.query("select 1 from catalog.facility where tenant_id = $1 and id = $2", [
          tenant,
          facilityRef,
        ])
      : { rowCount: 0 };
    if (!rowCount) return reply.code(400).send([{ summary: "no such facility", code: "FACILITY_NOT_FOUND" }]);
    const job = createPickJob(req.body as Parameters<typeof createPickJob>[0], {
      now: new Date(),
      user,
      newId,
      id: newId(),
      shortId: newShortId(),
    });
    const doc = JSON.stringify(job);
    const cols = jobColumns(job);
    await inTransaction(picking, async (client) => {
      await client.query(INSERT_JOB, [
        tenant,
        job.id,
        job.version,
        job.created,
        job.lastModified,
        doc,
        ...JOB_COLUMNS.map((c) => cols[c as keyof typeof cols]),
      ]);
      await recordEvent(client, "PICK_JOB_CREATED", doc);
    });
    return reply.code(201).header("location", `/api/pickjobs/${job.id}`).type("application/json").send(doc);
  });

  app.post<{ Params: { id: string }; Body: Json }>(
    "/api/pickjobs/:id/actions",
    { schema: { body: { type: "object", required: ["name", "version"] } } },
    async (req, reply) => {
      const { id } = req.params;
      if (!isUuid(id)) return reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);
      const doc = await inTransaction(picking, async (client) => {
        const { rows } = await client.query<{ doc: Parameters<typeof applyPickJobAction>[0] }>(
          "select doc from picking.pick_job where tenant_id = $1 and id = $2 for update",
          [tenant, id],
        );
        const current = rows[0]?.doc;
        if (!current || current.version !== req.body.version) return undefined;
        const { job, event } = applyPickJobAction(current, req.body as never, {
          now: new Date(),
          user,
          newId,
        });
        const json = JSON.stringify(job);
        const cols = jobColumns(job);
        await client.query(UPDATE_JOB, [
          tenant,
          id,
          job.version,
          job.lastModified,
          json,
          ...JOB_COLUMNS.map((c) => cols[c as keyof typeof cols]),
        ]);
        await recordEvent(client, event, json);
        return json;
      });
      if (doc === undefined) {
        return reply.code(409).send([{ summary: "no such job, or not at that version", code: "CONFLICT" }]);
      }
      return reply.type("application/json").send(doc);
    },
  );

  app.get<{ Params: { id: string } }>("/api/pickjobs/:id", async (req, reply) => {
    const { id } = req.params;
    const { rows } = isUuid(id)
      ? await picking.query<{ doc: unknown }>(
          "select doc from picking.pick_job where tenant_id = $1 and id = $2",
          [tenant, id],
        )
      : { rows: [] };
    if (!rows[0]) return reply.code(404).send([{ summary: "not found", code: "NOT_FOUND" }]);
    return rows[0].doc;
  });

  app.post<{ Body: SearchBody }>("/api/pickjobs/search", { schema: { body: searchSchema } }, async (req) => {
    const [facility, status] = req.body.query.and;
    const size = req.body.size ?? 20;
    const { rows } = await picking.query<{ id: string; doc: unknown; __sort_value: Date }>(searchSql(size), [
      tenant,
      facility.facilityRef.eq,
      status.status.eq,
    ]);
    const page = rows.slice(0, size);
    return {
      pickJobs: page.map((r) => r.doc),
      pageInfo: {
        startCursor: cursor(page[0]),
        endCursor: cursor(page[page.length - 1]),
        hasNextPage: rows.length > size,
        hasPreviousPage: false,
      },
    };
  });
}
