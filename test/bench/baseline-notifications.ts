/**
 * The baseline's notification routes: the database work the notifications service does per call,
 * without the gateway, auth, RPC hop, tracing or response schemas. Its tables are the notifications
 * migration's own (`notifications.notification` with its derived columns and indexes,
 * `notifications.notification_config`), in the baseline's database, read through the service's
 * role (its search_path, as the service's statements name the tables unqualified).
 *
 * - POST /api/notifications/search: the kit's runSearch over the service's own notificationSearch
 *   resource (the same SQL text, so the same index and plan; sent unnamed on both sides: a search's
 *   text is built per request), cursors signed as the service signs them; the stored documents
 *   (`doc::text`) answered as they are, in the gateway's page shape.
 * - GET /api/configurations/notifications: the service's loadConfigText of the tenant's
 *   configuration (facility_ref ''): the stored document as text, answered as it is (as the service
 *   does).
 */
import { cursorCodec } from "@fop/kit/search/cursor";
import { runSearch, type SearchParams } from "@fop/kit/search/keyset";
import { loadConfigText, notificationSearch } from "@fop/notifications";
import type { FastifyInstance, FastifyReply } from "fastify";
import type pg from "pg";
import { notFound, sendDomainError, unnamed } from "./baseline-sql.ts";

interface SearchBody {
  query?: SearchParams["query"];
  sort?: Record<string, string>[];
  after?: string;
  before?: string;
  size?: number;
  last?: number;
  options?: { withTotal?: boolean };
}

const searchSchema = {
  type: "object",
  properties: {
    query: { type: "object" },
    sort: { type: "array", maxItems: 1, items: { type: "object" } },
    after: { type: "string" },
    before: { type: "string" },
    size: { type: "integer", minimum: 1, maximum: 250 },
    last: { type: "integer", minimum: 1, maximum: 250 },
    options: { type: "object" },
  },
} as const;

/** The body as the gateway hands it to the service (toSearchRequest, then searchParams). */
function toParams(b: SearchBody): SearchParams {
  const [field, direction] = Object.entries(b.sort?.[0] ?? {})[0] ?? [];
  return {
    query: b.query,
    sort: field ? { field, direction: direction === "DESC" ? "DESC" : "ASC" } : undefined,
    after: b.after || undefined,
    before: b.before || undefined,
    size: b.size || undefined,
    last: b.last || undefined,
    withTotal: b.options?.withTotal ?? false,
  };
}

const JSON_TYPE = "application/json; charset=utf-8";
const sendJson = (reply: FastifyReply, json: string) => reply.type(JSON_TYPE).send(json);

export function notificationRoutes(app: FastifyInstance, tenant: string, pool: pg.Pool): void {
  /** Signed like the service's cursors (the same HMAC work per page). */
  const cursors = cursorCodec();

  app.post<{ Body: SearchBody }>(
    "/api/notifications/search",
    { schema: { body: searchSchema } },
    async (req, reply) => {
      try {
        const page = await runSearch<{ doc: string }>(
          unnamed(pool),
          tenant,
          notificationSearch,
          toParams(req.body),
          { cursors, now: new Date() },
        );
        const rest = JSON.stringify({
          pageInfo: page.pageInfo,
          ...(page.total === undefined ? {} : { total: page.total }),
        });
        return sendJson(
          reply,
          `{"notifications":[${page.rows.map((r) => r.doc).join(",")}],${rest.slice(1)}`,
        );
      } catch (err) {
        return sendDomainError(reply, err);
      }
    },
  );

  app.get("/api/configurations/notifications", async (_req, reply) => {
    const config = await loadConfigText(unnamed(pool), tenant, "");
    if (!config) return notFound(reply);
    return sendJson(reply, config);
  });
}
