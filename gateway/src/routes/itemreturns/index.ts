/** /api/itemreturnjobs: the route table (schemas, permissions, lifecycle) and thin handlers. */
import type { JsonObject } from "@bufbuild/protobuf";
import { callOptions } from "@fop/kit/rpc/client";
import type { FastifyInstance } from "fastify";
import { errorResponses, plainJson } from "../../schemas/common.ts";
import type { RouteDeps } from "../deps.ts";
import { sendDocument, sendDocumentPage } from "../documents.ts";
import {
  ItemReturnJob,
  ItemReturnJobActionsParameter,
  ItemReturnJobForCreation,
  ItemReturnJobIdParams,
  ItemReturnJobListQuery,
  ItemReturnJobs,
} from "./schemas.ts";

const tags = ["Returns (Operations)"];
const list = (v: string[] | undefined) => v ?? [];

export function itemReturnRoutes(app: FastifyInstance, { clients }: RouteDeps): void {
  const returns = clients.returns;

  app.get(
    "/api/itemreturnjobs",
    {
      ...plainJson,
      schema: {
        summary: "List item return jobs",
        description:
          "By id (creation order). Filters combine: facilityId (an origin facility or an item return's return facility), statuses, scannable codes (repeat the parameter for several), searchTerm (shortId, tenantOrderId, id, consumer names, e-mail, postal code, city), anonymized.",
        tags,
        querystring: ItemReturnJobListQuery,
        response: { 200: ItemReturnJobs, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["RETURN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const q = req.query as {
        size?: number;
        startAfterId?: string;
        facilityId?: string;
        itemReturnJobScannableCodes?: string[];
        itemReturnScannableCodes?: string[];
        itemReturnJobStatus?: string[];
        itemReturnStatus?: string[];
        searchTerm?: string;
        anonymized?: boolean;
      };
      const res = await returns.listItemReturnJobs(
        {
          page: { size: q.size ?? 25, startAfterId: q.startAfterId ?? "" },
          facilityId: q.facilityId ?? "",
          itemReturnJobStatus: list(q.itemReturnJobStatus),
          itemReturnStatus: list(q.itemReturnStatus),
          itemReturnJobScannableCodes: list(q.itemReturnJobScannableCodes),
          itemReturnScannableCodes: list(q.itemReturnScannableCodes),
          searchTerm: q.searchTerm ?? "",
          anonymizedGiven: q.anonymized !== undefined,
          anonymized: q.anonymized ?? false,
        },
        callOptions(req.ctx),
      );
      return sendDocumentPage(
        reply,
        "itemReturnJobsWithSearchPaths",
        res.itemReturnJobs.map((j) => j.documentJson),
        { total: Number(res.total) },
      );
    },
  );

  app.post(
    "/api/itemreturnjobs",
    {
      ...plainJson,
      schema: {
        summary: "Create item return job",
        description:
          "200 with the job, as the reference answers. Every origin facility must exist (400 otherwise).",
        tags,
        body: ItemReturnJobForCreation,
        response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["RETURN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await returns.createItemReturnJob({ body: req.body as JsonObject }, callOptions(req.ctx));
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  app.get(
    "/api/itemreturnjobs/:itemReturnJobId",
    {
      ...plainJson,
      schema: {
        summary: "Get item return job",
        tags,
        params: ItemReturnJobIdParams,
        response: { 200: ItemReturnJob, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["RETURN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { itemReturnJobId } = req.params as { itemReturnJobId: string };
      const res = await returns.getItemReturnJob({ id: itemReturnJobId }, callOptions(req.ctx));
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  app.post(
    "/api/itemreturnjobs/:itemReturnJobId/actions",
    {
      ...plainJson,
      schema: {
        summary: "Call item return job action",
        description:
          "One action on the version it names (409 when stale). StartItemReturnJob: OPEN -> IN_PROGRESS; FinishItemReturnJob: OPEN or IN_PROGRESS -> FINISHED; RestartItemReturnJob: FINISHED -> IN_PROGRESS; anything else is 422 naming what is possible. The line item actions move or replace the job's line items.",
        tags,
        params: ItemReturnJobIdParams,
        body: ItemReturnJobActionsParameter,
        response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["RETURN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { itemReturnJobId } = req.params as { itemReturnJobId: string };
      const res = await returns.itemReturnJobAction(
        { id: itemReturnJobId, action: req.body as JsonObject },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );
}
