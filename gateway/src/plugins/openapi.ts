/**
 * The OpenAPI document is generated from the route schemas: /api/openapi.json, rendered at /docs.
 * OpenAPI 3.1 (its schemas are JSON Schema, as TypeBox writes them); every schema with a `title` is
 * a named component, referenced where it is used (openapi-components.ts). Each operation carries
 * its lifecycle status (`x-lifecycle`, plus `deprecated` and the platform's `x-badges`) and the
 * permissions it needs (`x-fft-permissions`), the error statuses the gateway itself can answer on
 * it (`withGatewayResponses`) and, on path parameters that accept URNs, their form
 * (`withUrnParams`).
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { errorResponses } from "@fop/contracts/rest/common";
import type { FastifyInstance } from "fastify";
import { withNamedComponents } from "./openapi-components.ts";
import { URN_NAMESPACE } from "./urn.ts";
import "./types.ts";
import type { UrnParam } from "./types.ts";

const badge = { alpha: { color: "red", label: "ALPHA" }, beta: { color: "orange", label: "BETA" } } as const;

/** Methods fastify reads a request body for (so the body can be too large or not JSON). */
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The error statuses the gateway answers on an operation whatever its handler does: 400 (the request
 * line's checks, validation), 401/403 (token and permissions, unless the route needs none), 429 (the
 * tenant's rate limit), 500, 503/504 (a service down or too slow); 404 where the path names an entity
 * (an unknown id or URN); 413/415 where a body is read.
 */
export function gatewayErrorStatuses(method: string | readonly string[], url: string, auth = true): number[] {
  const methods = typeof method === "string" ? [method] : method;
  return [
    400,
    ...(auth ? [401, 403] : []),
    ...(/[:{]/.test(url) ? [404] : []),
    ...(methods.some((m) => BODY_METHODS.has(m.toUpperCase())) ? [413, 415] : []),
    429,
    500,
    503,
    504,
  ];
}

/** `response` with the gateway's error statuses added (the route's own entries win), in status order. */
export function withGatewayResponses(
  response: Record<string, unknown> | undefined,
  statuses: readonly number[],
): Record<string, unknown> {
  const merged = { ...errorResponses(...statuses), ...response };
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
}

type ObjectSchema = { properties?: Record<string, { description?: string }> };

/** `params` with each URN-accepting parameter's description naming its URN form (a copy; unchanged if none). */
export function withUrnParams<T extends ObjectSchema | undefined>(
  params: T,
  urns: readonly UrnParam[] = [],
): T {
  if (!params?.properties || urns.length === 0) return params;
  const properties = { ...params.properties };
  for (const u of urns) {
    const prop = properties[u.param];
    if (!prop || /urn:/.test(prop.description ?? "")) continue;
    const urn = `urn:${URN_NAMESPACE}:${u.entity}:${u.field}:<value>`;
    properties[u.param] = { ...prop, description: `${prop.description ?? "The id"}, or ${urn}` };
  }
  return { ...params, properties };
}

export async function installOpenApi(app: FastifyInstance, opts: { publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Fulfillment Operations Platform",
        version: "VERSIONLESS",
        description:
          "REST API of the open fulfillment operations platform. Errors are arrays of {summary, description, requestVersion, version, code}. Path ids also accept URNs (urn:fft:<entity>:<field>:<value>) where noted.",
        // The project's licence (the root package.json's) and who answers for the API.
        license: { name: "Apache License 2.0", identifier: "Apache-2.0" },
        contact: { name: "Fulfillment Operations Platform maintainers" },
      },
      // Without PUBLIC_URL: the host that serves the document (a relative server URL).
      servers: [
        opts.publicUrl
          ? { url: opts.publicUrl, description: "This installation (PUBLIC_URL)" }
          : { url: "/", description: "The host serving this document" },
      ],
      components: {
        securitySchemes: { BearerToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
      security: [{ BearerToken: [] }],
    },
    transformObject: (documentObject) =>
      withNamedComponents("openapiObject" in documentObject ? documentObject.openapiObject : {}),
    transform: ({ schema, url, route }) => {
      const config = route.config as
        | {
            lifecycle?: keyof typeof badge | "GA" | "deprecated";
            permissions?: readonly string[];
            urn?: readonly UrnParam[];
            auth?: boolean;
          }
        | undefined;
      if (!schema || !config?.lifecycle) return { schema: { ...schema, hide: true }, url };
      const lifecycle = config.lifecycle;
      return {
        url,
        schema: {
          ...schema,
          ...(schema.params ? { params: withUrnParams(schema.params as ObjectSchema, config.urn) } : {}),
          response: withGatewayResponses(
            schema.response as Record<string, unknown> | undefined,
            gatewayErrorStatuses(route.method, url, config.auth !== false),
          ),
          "x-lifecycle": lifecycle,
          ...(lifecycle === "deprecated" ? { deprecated: true } : {}),
          ...(lifecycle === "alpha" || lifecycle === "beta" ? { "x-badges": [badge[lifecycle]] } : {}),
          ...(config.permissions?.length ? { "x-fft-permissions": [...config.permissions] } : {}),
        },
      };
    },
  });
  // The docs page: no token, its own CSP (swagger-ui's hashes; no framing, no https upgrade so it
  // also works on plain-http local installs), not framable.
  await app.register(async (docs) => {
    docs.addHook("onRoute", (route) => {
      route.config = { ...route.config, auth: false };
    });
    docs.addHook("onSend", async (_req, reply, payload) => {
      reply.header("x-frame-options", "DENY");
      return payload;
    });
    await docs.register(swaggerUi, {
      routePrefix: "/docs",
      uiConfig: { deepLinking: true, validatorUrl: null },
      staticCSP: true,
      transformStaticCSP: (csp) =>
        csp
          .replace("frame-ancestors 'self'", "frame-ancestors 'none'")
          .replace(" validator.swagger.io", "")
          .replace(/\s*upgrade-insecure-requests;?/, ""),
    });
  });
  app.get("/api/openapi.json", { config: { auth: false }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}
