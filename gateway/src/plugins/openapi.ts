/**
 * The OpenAPI document is generated from the route schemas: /api/openapi.json, rendered at /docs.
 * Each operation carries its lifecycle status (`x-lifecycle`, plus `deprecated` and the platform's
 * `x-badges`) and the permissions it needs (`x-fft-permissions`).
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance } from "fastify";
import "./types.ts";

const badge = { alpha: { color: "red", label: "ALPHA" }, beta: { color: "orange", label: "BETA" } } as const;

export async function installOpenApi(app: FastifyInstance, opts: { publicUrl: string }): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.0.3",
      info: {
        title: "Fulfillment Operations Platform",
        version: "VERSIONLESS",
        description:
          "REST API of the open fulfillment operations platform. Errors are arrays of {summary, description, requestVersion, version, code}. Path ids also accept URNs (urn:fft:<entity>:<field>:<value>) where noted.",
      },
      servers: opts.publicUrl ? [{ url: opts.publicUrl }] : [],
      components: {
        securitySchemes: { BearerToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      },
      security: [{ BearerToken: [] }],
    },
    transform: ({ schema, url, route }) => {
      const config = route.config as
        | { lifecycle?: keyof typeof badge | "GA" | "deprecated"; permissions?: readonly string[] }
        | undefined;
      if (!schema || !config?.lifecycle) return { schema: { ...schema, hide: true }, url };
      const lifecycle = config.lifecycle;
      return {
        url,
        schema: {
          ...schema,
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
