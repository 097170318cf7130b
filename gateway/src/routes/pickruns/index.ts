/** /api/pickruns: the route table (schemas, permissions, lifecycle) and thin handlers. */

import { errorResponses, plainJson } from "@fop/contracts/rest/common";
import {
  PickRun,
  PickRunActionsParameter,
  PickRunForCreation,
  PickRunIdParams,
  PickRunPatchAction,
  PickRunPickJobsPatchAction,
} from "@fop/contracts/rest/pickruns";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendCreated, sendDocument } from "../documents.ts";

const tags = ["Picking (Operations)"];
export function pickRunRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const picking = clients.picking;

  app.post(
    "/api/pickruns",
    {
      ...plainJson,
      schema: {
        operationId: "addPickRun",
        summary: "Create pick run",
        tags,
        body: PickRunForCreation,
        response: { 201: PickRun, ...errorResponses(400, 401, 403, 422) },
      },
      config: { permissions: ["PICKRUN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await picking.createPickRun({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/pickruns`, res.pickRun);
    },
  );

  app.get(
    "/api/pickruns/:pickRunId",
    {
      ...plainJson,
      schema: {
        operationId: "getPickRun",
        summary: "Get pick run",
        tags,
        params: PickRunIdParams,
        response: { 200: PickRun, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["PICKRUN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickRunId } = req.params;
      return sendDocument(
        reply,
        (await picking.getPickRun({ id: pickRunId }, callOptions(req.ctx))).pickRun?.documentJson,
      );
    },
  );

  app.patch(
    "/api/pickruns/:pickRunId",
    {
      ...plainJson,
      schema: {
        operationId: "patchPickRun",
        summary: "Update pick run",
        tags,
        params: PickRunIdParams,
        body: PickRunPatchAction,
        response: { 200: PickRun, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["PICKRUN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickRunId } = req.params;
      const body = req.body;
      const res = await picking.patchPickRun(
        { id: pickRunId, version: BigInt(body.version), actions: body.actions },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.pickRun?.documentJson);
    },
  );

  app.post(
    "/api/pickruns/:pickRunId/actions",
    {
      ...plainJson,
      schema: {
        operationId: "pickRunAction",
        summary: "Call pick run action",
        tags,
        params: PickRunIdParams,
        body: PickRunActionsParameter,
        response: { 200: PickRun, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["PICKRUN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickRunId } = req.params;
      const body = req.body;
      const res = await picking.pickRunAction({ id: pickRunId, action: body }, callOptions(req.ctx));
      return sendDocument(reply, res.pickRun?.documentJson);
    },
  );

  app.patch(
    "/api/pickruns/:pickRunId/pickjobs",
    {
      ...plainJson,
      schema: {
        operationId: "patchPickRunPickJobs",
        summary: "Update pick run pick jobs (deprecated: use the REMOVE_PICK_JOB action)",
        tags,
        params: PickRunIdParams,
        body: PickRunPickJobsPatchAction,
        response: { 200: PickRun, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: {
        permissions: ["PICKRUN_WRITE"],
        lifecycle: "deprecated",
        replacement: "/api/pickruns/{pickRunId}/actions",
      },
    },
    async (req, reply) => {
      const { pickRunId } = req.params;
      const body = req.body;
      const res = await picking.removePickJobFromPickRun(
        { id: pickRunId, version: BigInt(body.version), pickJobRef: body.actions[0]!.pickJobRef },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.pickRun?.documentJson);
    },
  );
}
