/** /api/configurations/picking: the tenant's picking configuration (owned by the picking service). */

import { errorResponses, plainJson } from "@fop/contracts/rest/common";
import { PickingConfigurations, PickingConfigurationsPatch } from "@fop/contracts/rest/pickingconfig";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendDocument } from "../documents.ts";

const tags = ["Picking Configuration (Operations)"];

export function pickingConfigurationRoutes(app: RouteApp, { clients }: RouteDeps): void {
  const picking = clients.picking;

  app.get(
    "/api/configurations/picking",
    {
      ...plainJson,
      schema: {
        operationId: "getPickingConfigurations",
        summary: "Get picking config",
        description:
          "The tenant's picking configuration; before the first PATCH, the defaults with version 0 (nothing stored).",
        tags,
        response: { 200: PickingConfigurations, ...errorResponses(401, 403) },
      },
      config: { permissions: ["CONFIG_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await picking.getPickingConfiguration({}, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );

  app.patch(
    "/api/configurations/picking",
    {
      ...plainJson,
      schema: {
        operationId: "putPickingConfigurations",
        summary: "Update picking config",
        description:
          "Replaces each sub-configuration the body names (the others are kept) on the version the body names: 0 before the first PATCH, which creates the configuration (201); later 200; 409 when stale. Which sub-configurations take effect: the picking service's README.",
        tags,
        body: PickingConfigurationsPatch,
        response: {
          200: PickingConfigurations,
          201: PickingConfigurations,
          ...errorResponses(400, 401, 403, 409),
        },
      },
      config: { permissions: ["CONFIG_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await picking.patchPickingConfiguration({ body: req.body }, callOptions(req.ctx));
      return sendDocument(reply.code(res.created ? 201 : 200), res.configuration?.documentJson);
    },
  );
}
