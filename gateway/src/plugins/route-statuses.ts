/**
 * Opt-in (RECORD_ROUTE_STATUSES_FILE, for the system tests): appends `METHOD /route/:pattern status`
 * to a file for each /api answer, once per distinct line, so that the statuses the routes really
 * answer can be compared with those the OpenAPI document lists (test/support/route-statuses.ts).
 * Synchronous appends: a gateway that is killed has still written every line it answered.
 */
import { appendFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";

export function installRouteStatusRecorder(app: FastifyInstance, file: string): void {
  const seen = new Set<string>();
  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url;
    // Unmatched requests have no route; hidden routes (the document itself) are not in it.
    if (!route?.startsWith("/api/") || req.routeOptions.schema?.hide) return;
    const line = `${req.method} ${route} ${reply.statusCode}`;
    if (seen.has(line)) return;
    seen.add(line);
    appendFileSync(file, `${line}\n`);
  });
}
