/** /api/itemreturnjobs: the route table (schemas, permissions, lifecycle) and thin handlers. */

import { errorResponses, listFilters, listPage, plainJson } from "@fop/contracts/rest/common";
import { Parcel, ParcelForCreation } from "@fop/contracts/rest/itemreturn-parcels";
import {
  AddItemReturnToItemReturnJob,
  DeleteItemReturnQuery,
  ItemReturn,
  ItemReturnActionsParameter,
  ItemReturnJob,
  ItemReturnJobActionsParameter,
  ItemReturnJobForCreation,
  ItemReturnJobIdParams,
  ItemReturnJobListQuery,
  ItemReturnJobs,
  ItemReturnLineItemForUpdate,
  ItemReturnNotReturnableLineItemForUpdate,
  ItemReturnParams,
  ItemReturns,
  ItemReturnsQuery,
  LocalizedReturnConfiguration,
  NotReturnableLineParams,
  ReplaceReturnedLineItems,
  ReplaceReturnedNotReturnableLineItems,
  ReturnConfiguration,
  ReturnedLineParams,
} from "@fop/contracts/rest/itemreturns";
import { ItemReturnJobListFilters, ItemReturnListFilters } from "@fop/contracts/returns";
import { callOptions } from "@fop/kit/rpc/client";
import { ReturnLineItemKind } from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendDocument, sendDocumentArray, sendDocumentPage } from "../documents.ts";

const tags = ["Returns (Operations)"];

export function itemReturnRoutes(app: RouteApp, { clients }: RouteDeps): void {
  const returns = clients.returns;

  app.get(
    "/api/itemreturnjobs",
    {
      ...plainJson,
      schema: {
        operationId: "getItemReturnJobs",
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
      const res = await returns.listItemReturnJobs(
        { page: listPage(req.query), filters: listFilters(ItemReturnJobListFilters, req.query) },
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
        operationId: "createItemReturnJob",
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
      const res = await returns.createItemReturnJob({ body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  app.get(
    "/api/itemreturnjobs/:itemReturnJobId",
    {
      ...plainJson,
      schema: {
        operationId: "getItemReturnJob",
        summary: "Get item return job",
        tags,
        params: ItemReturnJobIdParams,
        response: { 200: ItemReturnJob, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["RETURN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { itemReturnJobId } = req.params;
      const res = await returns.getItemReturnJob({ id: itemReturnJobId }, callOptions(req.ctx));
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  app.post(
    "/api/itemreturnjobs/:itemReturnJobId/actions",
    {
      ...plainJson,
      schema: {
        operationId: "updateItemReturnJob",
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
      const { itemReturnJobId } = req.params;
      const res = await returns.itemReturnJobAction(
        { id: itemReturnJobId, action: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  const JOB = "/api/itemreturnjobs/:itemReturnJobId";

  app.post(
    `${JOB}/itemreturns`,
    {
      ...plainJson,
      schema: {
        operationId: "createItemReturn",
        summary: "Add item return to item return job",
        description:
          "Names the job's version (409 when stale); answers 200 with the whole job. Every line names a line item of the job (returned lines a returnable one); the return facility must exist.",
        tags,
        params: ItemReturnJobIdParams,
        body: AddItemReturnToItemReturnJob,
        response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["RETURN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { itemReturnJobId } = req.params;
      const res = await returns.addItemReturn({ itemReturnJobId, body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  app.get(
    `${JOB}/itemreturns`,
    {
      ...plainJson,
      schema: {
        operationId: "getItemReturns",
        summary: "List item returns",
        tags,
        params: ItemReturnJobIdParams,
        response: {
          200: { type: "array", items: ItemReturn, title: "ItemReturnList" },
          ...errorResponses(401, 403, 404),
        },
      },
      config: { permissions: ["RETURN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { itemReturnJobId } = req.params;
      const res = await returns.listItemReturns({ itemReturnJobId }, callOptions(req.ctx));
      return sendDocumentArray(reply, res.itemReturnsJson);
    },
  );

  app.get(
    `${JOB}/itemreturns/:itemReturnId`,
    {
      ...plainJson,
      schema: {
        operationId: "getItemReturn",
        summary: "Get item return",
        tags,
        params: ItemReturnParams,
        response: { 200: ItemReturn, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["RETURN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const p = req.params;
      const res = await returns.getItemReturn(
        { itemReturnJobId: p.itemReturnJobId, id: p.itemReturnId },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.itemReturnJson);
    },
  );

  app.post(
    `${JOB}/itemreturns/:itemReturnId/actions`,
    {
      ...plainJson,
      schema: {
        operationId: "itemReturnActions",
        summary: "Call item return action",
        description:
          "One action on the job version it names (409 when stale); 422 INVALID_TRANSITION naming what is possible. Answers the whole job.",
        tags,
        params: ItemReturnParams,
        body: ItemReturnActionsParameter,
        response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["RETURN_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const p = req.params;
      const res = await returns.itemReturnAction(
        { itemReturnJobId: p.itemReturnJobId, id: p.itemReturnId, action: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  for (const [path, param, kind, body, operationId, summary] of [
    [
      "returnedlineitems",
      "returnedLineItemId",
      ReturnLineItemKind.RETURNED,
      ItemReturnLineItemForUpdate,
      "updateItemReturnLineItem",
      "Update returned line item",
    ],
    [
      "returnednotreturnablelineitems",
      "returnedNotReturnableLineItemId",
      ReturnLineItemKind.NOT_RETURNABLE,
      ItemReturnNotReturnableLineItemForUpdate,
      "updateItemReturnNotReturnableLineItem",
      "Update returned not returnable line item",
    ],
  ] as const) {
    app.patch(
      `${JOB}/itemreturns/:itemReturnId/${path}/:${param}`,
      {
        ...plainJson,
        schema: {
          operationId,
          summary,
          description:
            "status (OPEN, IN_PROGRESS, WAITING_FOR_INPUT move freely; ACCEPTED, REJECTED, CANCELED are final: 422), decisionReason" +
            (kind === ReturnLineItemKind.RETURNED ? ", refund (price or percent)" : "") +
            ", on the job version it names (409 when stale). When every line item of the job's item returns is decided, REFUND_TRIGGERED is emitted, once per job. Answers the whole job.",
          tags,
          params: kind === ReturnLineItemKind.RETURNED ? ReturnedLineParams : NotReturnableLineParams,
          body,
          response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403, 404, 409, 422) },
        },
        config: { permissions: ["RETURN_WRITE"], lifecycle: "GA" },
      },
      async (req, reply) => {
        const p: Record<string, string> = req.params;
        const res = await returns.patchReturnLineItem(
          {
            itemReturnJobId: p.itemReturnJobId,
            itemReturnId: p.itemReturnId,
            kind,
            id: p[param],
            body: req.body,
          },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.itemReturnJob?.documentJson);
      },
    );
  }

  for (const [path, kind, body, operationId, summary] of [
    [
      "returnedlineitems",
      ReturnLineItemKind.RETURNED,
      ReplaceReturnedLineItems,
      "replaceReturnedLineItems",
      "Replace returned line items",
    ],
    [
      "returnednotreturnablelineitems",
      ReturnLineItemKind.NOT_RETURNABLE,
      ReplaceReturnedNotReturnableLineItems,
      "replaceReturnedNotReturnableLineItems",
      "Replace returned not returnable line items",
    ],
  ] as const) {
    app.put(
      `${JOB}/itemreturns/:itemReturnId/${path}`,
      {
        ...plainJson,
        schema: {
          operationId,
          summary,
          description:
            "Replaces the list with 1 to 100 new line items (new ids) on the job version the body names (409 when stale); answers the whole job.",
          tags,
          params: ItemReturnParams,
          body,
          response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403, 404, 409) },
        },
        config: { permissions: ["RETURN_WRITE"], lifecycle: "GA" },
      },
      async (req, reply) => {
        const p = req.params;
        const res = await returns.replaceReturnLineItems(
          {
            itemReturnJobId: p.itemReturnJobId,
            itemReturnId: p.itemReturnId,
            kind,
            body: req.body,
          },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.itemReturnJob?.documentJson);
      },
    );
  }

  app.delete(
    `${JOB}/itemreturns/:itemReturnId`,
    {
      ...plainJson,
      schema: {
        operationId: "deleteItemReturn",
        summary: "Delete item return",
        description:
          "Deprecated. Removes the item return on the job version the query names (409 when stale); answers the job.",
        tags,
        params: ItemReturnParams,
        querystring: DeleteItemReturnQuery,
        response: { 200: ItemReturnJob, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["RETURN_WRITE"], lifecycle: "deprecated" },
    },
    async (req, reply) => {
      const p = req.params;
      const q = req.query;
      const res = await returns.deleteItemReturn(
        {
          itemReturnJobId: p.itemReturnJobId,
          id: p.itemReturnId,
          itemReturnJobVersion: BigInt(q.itemReturnJobVersion),
        },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.itemReturnJob?.documentJson);
    },
  );

  app.get(
    "/api/itemreturns",
    {
      ...plainJson,
      schema: {
        operationId: "findItemReturns",
        summary: "Get item returns",
        description:
          "Item returns across jobs, by id (creation order); `searchPaths` names the job each is in. Filters combine: searchTerm (item return id, tenantOrderId, consumer names, article ids and titles), statuses, line item statuses, facilityRefs (return or origin facility), anonymized (repeat a parameter for several values).",
        tags,
        querystring: ItemReturnsQuery,
        response: { 200: ItemReturns, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["RETURN_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await returns.findItemReturns(
        { page: listPage(req.query), filters: listFilters(ItemReturnListFilters, req.query) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "itemReturns", res.itemReturnsJson, {
        totalCount: Number(res.totalCount),
      });
    },
  );

  app.post(
    "/api/itemreturnjobs/:itemReturnJobId/itemreturns/:itemReturnId/parcels",
    {
      ...plainJson,
      schema: {
        operationId: "createItemReturnParcel",
        summary: "Create item return parcel",
        description:
          "201 with the Parcel; its id joins the item return's parcelRefs (at most 50; the job's version moves). carrierRef must be one of the tenant's carriers (400). sender defaults to the return facility's address, recipient to the job's first consumer address, processRef is the job's; status OPEN unless given. tenantParcelId is unique among the tenant's parcels that are not OBSOLETE or CANCELED (409). A CANCELED or OBSOLETE item return takes no parcels (422).",
        tags,
        params: ItemReturnParams,
        body: ParcelForCreation,
        response: { 201: Parcel, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["RETURN_WRITE"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const { itemReturnJobId, itemReturnId } = req.params;
      const res = await returns.createItemReturnParcel(
        { itemReturnJobId, itemReturnId, body: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply.code(201), res.parcel?.documentJson);
    },
  );

  app.get(
    "/api/configurations/return",
    {
      ...plainJson,
      schema: {
        operationId: "getReturnConfiguration",
        summary: "Get return configuration",
        description: "404 until the first PUT.",
        tags: ["Returns Configuration (Operations)"],
        response: { 200: LocalizedReturnConfiguration, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CONFIG_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await returns.getReturnConfiguration({}, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );

  app.put(
    "/api/configurations/return",
    {
      ...plainJson,
      schema: {
        operationId: "upsertReturnConfiguration",
        summary: "Upsert return configuration",
        description:
          "201 when it creates the configuration (the version is not checked then), 200 when it replaces it on the version the body names (409 when stale). Return reasons without identifier get the next free one (1-99, then A-Z).",
        tags: ["Returns Configuration (Operations)"],
        body: ReturnConfiguration,
        response: {
          200: LocalizedReturnConfiguration,
          201: LocalizedReturnConfiguration,
          ...errorResponses(400, 401, 403, 409),
        },
      },
      config: { permissions: ["CONFIG_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await returns.putReturnConfiguration({ body: req.body }, callOptions(req.ctx));
      return sendDocument(reply.code(res.created ? 201 : 200), res.configuration?.documentJson);
    },
  );
}
