/** `npm run openapi`: prints the OpenAPI document /api/openapi.json serves (without PUBLIC_URL). */
import { createLogger } from "@fop/kit/logger";
import { createMetrics } from "@fop/kit/metrics";
import { buildGateway } from "../app.ts";

/**
 * The document, from the routes alone: no service, token or URN is used to build it. `publicUrl`:
 * the gateway's PUBLIC_URL (its `servers`).
 */
export async function openApiDocument(publicUrl = ""): Promise<Record<string, unknown>> {
  const app = await buildGateway({
    logger: createLogger({ service: "openapi", level: "silent" }),
    metrics: createMetrics("openapi"),
    clients: {} as never,
    verify: async () => {
      throw new Error("unused");
    },
    resolveUrn: async () => "",
    checkServices: async () => ({}),
    publicUrl,
  });
  await app.ready();
  const doc = app.swagger() as Record<string, unknown>;
  await app.close();
  return doc;
}

if (import.meta.main) process.stdout.write(`${JSON.stringify(await openApiDocument(), null, 2)}\n`);
