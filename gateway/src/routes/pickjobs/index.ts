/** /api/pickjobs: the route table (schemas, permissions, lifecycle) and thin handlers. */
import { PickJobListFilters } from "@fop/contracts/picking";
import { errorResponses, listFilters, listPage, plainJson } from "@fop/contracts/rest/common";
import { LoadUnit, LoadUnits } from "@fop/contracts/rest/loadunits";
import {
  DeliveryNoteQuery,
  DocumentHandling,
  PickingLoadUnitForCreation,
  PickingPatchActions,
  PickJob,
  PickJobActionsParameter,
  PickJobForCreation,
  PickJobIdParams,
  PickJobListQuery,
  PickJobPaginatedResult,
  PickJobSearchPayload,
  PickLineItemParams,
  ResolvedSubstitutes,
  StrippedPickJobs,
} from "@fop/contracts/rest/pickjobs";
import { callOptions } from "@fop/kit/rpc/client";
import { PickJobDocumentKind } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { localeOf, type RouteApp, type RouteDeps } from "../deps.ts";
import { parseDocument, sendCreated, sendDocument, sendDocumentPage } from "../documents.ts";
import { toPageInfo, toSearchRequest, withTotal } from "../search.ts";

const tags = ["Picking (Operations)"];

export function pickJobRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const picking = clients.picking;

  app.get(
    "/api/pickjobs",
    {
      ...plainJson,
      schema: {
        operationId: "queryPickJobs",
        summary: "List pick jobs",
        tags,
        querystring: PickJobListQuery,
        response: { 200: StrippedPickJobs, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["PICKJOB_READ"], lifecycle: "GA" },
    },
    async (req) => {
      const res = await picking.listPickJobs(
        { page: listPage(req.query), filters: listFilters(PickJobListFilters, req.query) },
        callOptions(req.ctx),
      );
      return { pickjobs: res.pickjobs, total: Number(res.total) };
    },
  );

  app.post(
    "/api/pickjobs",
    {
      ...plainJson,
      schema: {
        operationId: "addPickJob",
        summary: "Create pick job",
        tags,
        body: PickJobForCreation,
        response: { 201: PickJob, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["PICKJOB_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await picking.createPickJob({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/pickjobs`, res.pickJob);
    },
  );

  app.post(
    "/api/pickjobs/search",
    {
      ...plainJson,
      schema: {
        operationId: "searchPickJob",
        summary: "List pick jobs (search)",
        tags,
        body: PickJobSearchPayload,
        response: { 200: PickJobPaginatedResult, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["PICKJOB_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await picking.searchPickJobs({ search: toSearchRequest(req.body) }, callOptions(req.ctx));
      return sendDocumentPage(reply, "pickJobs", res.pickJobsJson, {
        pageInfo: toPageInfo(res.pageInfo),
        ...withTotal(res.total),
      });
    },
  );

  app.get(
    "/api/pickjobs/:pickJobId",
    {
      ...plainJson,
      schema: {
        operationId: "getPickJob",
        summary: "Get pick job",
        tags,
        params: PickJobIdParams,
        response: { 200: PickJob, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["PICKJOB_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickJobId } = req.params;
      return sendDocument(
        reply,
        (await picking.getPickJob({ id: pickJobId }, callOptions(req.ctx))).pickJob?.documentJson,
      );
    },
  );

  app.patch(
    "/api/pickjobs/:pickJobId",
    {
      ...plainJson,
      schema: {
        operationId: "patchPickJob",
        summary: "Update pick job (deprecated: use POST /api/pickjobs/{pickJobId}/actions)",
        tags,
        params: PickJobIdParams,
        body: PickingPatchActions,
        response: { 200: PickJob, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: {
        permissions: ["PICKJOB_WRITE"],
        lifecycle: "deprecated",
        replacement: "/api/pickjobs/{pickJobId}/actions",
      },
    },
    async (req, reply) => {
      const { pickJobId } = req.params;
      const body = req.body;
      const res = await picking.patchPickJob(
        { id: pickJobId, version: BigInt(body.version), actions: body.actions },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.pickJob?.documentJson);
    },
  );

  app.post(
    "/api/pickjobs/:pickJobId/actions",
    {
      ...plainJson,
      schema: {
        operationId: "pickJobAction",
        summary: "Call pick job action",
        tags,
        params: PickJobIdParams,
        body: PickJobActionsParameter,
        response: { 200: PickJob, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["PICKJOB_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickJobId } = req.params;
      const body = req.body;
      const res = await picking.pickJobAction({ id: pickJobId, action: body }, callOptions(req.ctx));
      return sendDocument(reply, res.pickJob?.documentJson);
    },
  );

  app.get(
    "/api/pickjobs/:pickJobId/picklineitems/:pickLineItemId/availablesubstitutes",
    {
      ...plainJson,
      schema: {
        operationId: "queryPickLineItemsSubstitutes",
        summary: "List available line item substitutes",
        tags,
        params: PickLineItemParams,
        response: { 200: ResolvedSubstitutes, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["PICKJOB_READ"], lifecycle: "beta" },
    },
    async (req) => {
      const { pickJobId, pickLineItemId } = req.params;
      const res = await picking.getAvailableSubstitutes({ pickJobId, pickLineItemId }, callOptions(req.ctx));
      return { tenantArticleId: res.tenantArticleId, substitutes: res.substitutes };
    },
  );

  const pdfResponse = {
    200: {
      description: "The document",
      content: { "application/pdf": { schema: { type: "string", format: "binary", title: "PdfDocument" } } },
    },
    ...errorResponses(401, 403, 404),
  };
  const documents = [
    ["returnnote", "getReturnNotesForPickjob", "return note", PickJobDocumentKind.RETURN_NOTE, undefined],
    [
      "transferlabel",
      "getPickJobTransferLabel",
      "transfer label",
      PickJobDocumentKind.TRANSFER_LABEL,
      undefined,
    ],
    [
      "deliverynote",
      "getPickJobDeliveryNote",
      "delivery note",
      PickJobDocumentKind.DELIVERY_NOTE,
      DeliveryNoteQuery,
    ],
  ] as const;
  for (const [path, operationId, name, kind, querystring] of documents) {
    app.get(
      `/api/pickjobs/:pickJobId/${path}`,
      {
        ...plainJson,
        schema: {
          operationId,
          summary: `Get pick job ${name}`,
          tags,
          params: PickJobIdParams,
          // A key set to undefined makes fastify warn at start (FSTWRN001): only when there is one.
          ...(querystring ? { querystring } : {}),
          response: pdfResponse,
        },
        config: { permissions: ["PICKJOB_READ"], lifecycle: "GA" },
      },
      async (req, reply) => {
        const { pickJobId } = req.params;
        // Only the delivery note takes (and validates) a locale.
        const locale = querystring ? localeOf(req) : "";
        const res = await picking.getPickJobDocument({ id: pickJobId, kind, locale }, callOptions(req.ctx));
        return reply
          .type("application/pdf")
          .header("content-disposition", `inline; filename="${res.fileName}"`)
          .send(Buffer.from(res.content));
      },
    );
  }

  app.get(
    "/api/pickjobs/:pickJobId/documenthandling",
    {
      ...plainJson,
      schema: {
        operationId: "getPickJobDocumentHandling",
        summary: "Get pick job document handling",
        tags: ["Picking Configuration (Operations)"],
        params: PickJobIdParams,
        response: { 200: DocumentHandling, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["PICKJOB_READ"], lifecycle: "GA" },
    },
    async (req) => {
      const { pickJobId } = req.params;
      const res = await picking.getPickJob({ id: pickJobId }, callOptions(req.ctx));
      return parseDocument<{ documentHandling: unknown }>(res.pickJob?.documentJson).documentHandling;
    },
  );

  /** A pick job's load units belong to the loadunits service (it knows the job from picking's events). */
  app.get(
    "/api/pickjobs/:pickJobId/loadunits",
    {
      ...plainJson,
      schema: {
        operationId: "queryPickJobLoadUnits",
        summary: "List pick job load units",
        description: "Every load unit of the pick job, AVAILABLE and OBSOLETE, oldest first.",
        tags,
        params: PickJobIdParams,
        response: { 200: LoadUnits, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["PICKJOB_READ", "LOADUNIT_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickJobId } = req.params;
      const res = await clients.loadunits.listPickJobLoadUnits({ pickJobId }, callOptions(req.ctx));
      return sendDocumentPage(
        reply,
        "loadUnits",
        res.loadUnits.map((u) => u.documentJson),
        { total: Number(res.total) },
      );
    },
  );
  app.post(
    "/api/pickjobs/:pickJobId/loadunits",
    {
      ...plainJson,
      schema: {
        operationId: "addPickJobLoadUnits",
        summary: "Create pick job load unit",
        tags,
        params: PickJobIdParams,
        body: PickingLoadUnitForCreation,
        response: { 201: LoadUnit, ...errorResponses(400, 401, 403, 404) },
      },
      config: { permissions: ["PICKJOB_WRITE", "LOADUNIT_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { pickJobId } = req.params;
      const res = await clients.loadunits.createPickJobLoadUnit(
        { pickJobId, body: req.body },
        callOptions(req.ctx),
      );
      return sendCreated(reply, `${publicUrl}/api/loadunits`, res.loadUnit);
    },
  );
}
