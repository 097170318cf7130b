/**
 * The handover configuration (owned by returns): the reference's GET
 * /api/configurations/handover/refusereasons, and our GET/PUT /api/configurations/handover that
 * hold them (the reference only reads them). The reference names no permission: CONFIG_READ /
 * CONFIG_WRITE, as for the other configurations and reasons.
 */

import { errorResponses, plainJson } from "@fop/contracts/rest/common";
import {
  AvailableRefusedReasons,
  HandoverConfiguration,
  HandoverConfigurationForUpsert,
} from "@fop/contracts/rest/handover";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendDocument } from "../documents.ts";

const tags = ["Handovers Configuration (Operations)"];

export function handoverRoutes(app: RouteApp, { clients }: RouteDeps): void {
  const returns = clients.returns;

  app.get(
    "/api/configurations/handover/refusereasons",
    {
      ...plainJson,
      schema: {
        operationId: "getAllRefuseReasons",
        summary: "List refuse reasons",
        description: "The tenant's refuse reasons (none until PUT /api/configurations/handover names some).",
        tags,
        response: { 200: AvailableRefusedReasons, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["CONFIG_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await returns.listRefuseReasons({}, callOptions(req.ctx));
      return sendDocument(reply, res.refusedReasonsJson);
    },
  );

  app.get(
    "/api/configurations/handover",
    {
      ...plainJson,
      schema: {
        operationId: "getHandoverConfiguration",
        summary: "Get handover configuration",
        description: "Ours (the reference only reads the refuse reasons). 404 until the first PUT.",
        tags,
        response: { 200: HandoverConfiguration, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CONFIG_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await returns.getHandoverConfiguration({}, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );

  app.put(
    "/api/configurations/handover",
    {
      ...plainJson,
      schema: {
        operationId: "upsertHandoverConfiguration",
        summary: "Upsert handover configuration",
        description:
          "Ours (the reference only reads the refuse reasons). 201 when it creates the configuration (the version is not checked then), 200 when it replaces it on the version the body names (409 when stale). refusedReason is set to the text of the first locale.",
        tags,
        body: HandoverConfigurationForUpsert,
        response: {
          200: HandoverConfiguration,
          201: HandoverConfiguration,
          ...errorResponses(400, 401, 403, 409),
        },
      },
      config: { permissions: ["CONFIG_WRITE"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await returns.putHandoverConfiguration({ body: req.body }, callOptions(req.ctx));
      return sendDocument(reply.code(res.created ? 201 : 200), res.configuration?.documentJson);
    },
  );
}
