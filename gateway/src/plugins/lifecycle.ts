/** Deprecated routes announce it: `Deprecation` (RFC 9745) and a `Link` to their replacement. */
import type { FastifyInstance } from "fastify";

/** When the deprecated routes we serve were deprecated (2026-01-01T00:00:00Z). */
const DEPRECATED_SINCE = `@${Date.UTC(2026, 0, 1) / 1000}`;

export function installLifecycleHeaders(app: FastifyInstance): void {
  app.addHook("onSend", async (req, reply, payload) => {
    const config = req.routeOptions.config;
    if (config?.lifecycle === "deprecated") {
      reply.header("deprecation", DEPRECATED_SINCE);
      if (config.replacement) reply.header("link", `<${config.replacement}>; rel="successor-version"`);
    }
    return payload;
  });
}
