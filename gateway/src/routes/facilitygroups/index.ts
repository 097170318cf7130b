/** /api/facilitygroups: the route table (schemas, permissions, lifecycle) and thin handlers. */
import { FacilityGroupListFilters } from "@fop/contracts/facilities";
import { errorResponses, listFilters, listPage, plainJson } from "@fop/contracts/rest/common";
import {
  FacilityGroup,
  FacilityGroupActionsParameter,
  FacilityGroupForCreation,
  FacilityGroupForUpdate,
  FacilityGroupIdParams,
  FacilityGroupListQuery,
  FacilityGroupPaginatedResult,
  FacilityGroupSearchPayload,
  FacilityGroups,
} from "@fop/contracts/rest/facilitygroups";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendCreated, sendDocument, sendDocumentPage } from "../documents.ts";
import { toPageInfo, toSearchRequest, withTotal } from "../search.ts";

const tags = ["Facility Groups"];
const urn = [{ param: "facilityGroupId", entity: "facilitygroup", field: "tenantFacilityGroupId" }] as const;
const idOf = (req: { params: { facilityGroupId: string } }) => req.params.facilityGroupId;
const LIMITS =
  "A group holds at most 1000 facilities and a facility is in at most 20 groups (both configurable); one more is a 400.";

export function facilityGroupRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const catalog = clients.catalog;

  app.get(
    "/api/facilitygroups",
    {
      ...plainJson,
      schema: {
        operationId: "getAllFacilityGroups",
        summary: "List facility groups",
        description: "By id (creation order); `tenantFacilityGroupId` narrows to that group.",
        tags,
        querystring: FacilityGroupListQuery,
        response: { 200: FacilityGroups, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["FACILITY_GROUP_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await catalog.listFacilityGroups(
        { page: listPage(req.query), filters: listFilters(FacilityGroupListFilters, req.query) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(
        reply,
        "facilityGroups",
        res.facilityGroups.map((g) => g.documentJson),
        { total: Number(res.total) },
      );
    },
  );

  app.post(
    "/api/facilitygroups",
    {
      ...plainJson,
      schema: {
        operationId: "addFacilityGroup",
        summary: "Create facility group",
        description: `201 with the group. Every facility must be one of the tenant's (400). ${LIMITS}`,
        tags,
        body: FacilityGroupForCreation,
        response: { 201: FacilityGroup, ...errorResponses(400, 401, 403, 409) },
      },
      config: { permissions: ["FACILITY_GROUP_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await catalog.createFacilityGroup({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/facilitygroups`, res.facilityGroup);
    },
  );

  app.post(
    "/api/facilitygroups/search",
    {
      ...plainJson,
      schema: {
        operationId: "searchFacilityGroup",
        summary: "Search facility groups",
        tags,
        body: FacilityGroupSearchPayload,
        response: { 200: FacilityGroupPaginatedResult, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["FACILITY_GROUP_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await catalog.searchFacilityGroups(
        { search: toSearchRequest(req.body) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(
        reply,
        "facilityGroups",
        res.facilityGroups.map((g) => g.documentJson),
        { pageInfo: toPageInfo(res.pageInfo), ...withTotal(res.total) },
      );
    },
  );

  app.get(
    "/api/facilitygroups/:facilityGroupId",
    {
      ...plainJson,
      schema: {
        operationId: "getFacilityGroup",
        summary: "Get facility group",
        tags,
        params: FacilityGroupIdParams,
        response: { 200: FacilityGroup, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["FACILITY_GROUP_READ"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const res = await catalog.getFacilityGroup({ id: idOf(req) }, callOptions(req.ctx));
      return sendDocument(reply, res.facilityGroup?.documentJson);
    },
  );

  app.patch(
    "/api/facilitygroups/:facilityGroupId",
    {
      ...plainJson,
      schema: {
        operationId: "replaceFacilityGroup",
        summary: "Update facility group",
        description: `Replaces every updatable field on the version the body names (409 when stale): facilityRefs and customAttributes left out are removed. ${LIMITS}`,
        tags,
        params: FacilityGroupIdParams,
        body: FacilityGroupForUpdate,
        response: { 200: FacilityGroup, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["FACILITY_GROUP_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const res = await catalog.updateFacilityGroup({ id: idOf(req), body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.facilityGroup?.documentJson);
    },
  );

  app.delete(
    "/api/facilitygroups/:facilityGroupId",
    {
      ...plainJson,
      schema: {
        operationId: "deleteFacilityGroup",
        summary: "Delete facility group",
        tags,
        params: FacilityGroupIdParams,
        response: { 200: { type: "null", description: "Deleted." }, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["FACILITY_GROUP_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      await catalog.deleteFacilityGroup({ id: idOf(req) }, callOptions(req.ctx));
      return reply.code(200).send();
    },
  );

  app.post(
    "/api/facilitygroups/:facilityGroupId/actions",
    {
      ...plainJson,
      schema: {
        operationId: "facilityGroupAction",
        summary: "Add or remove facilities",
        description: `ADD_FACILITIES_TO_GROUP (version optional, as in the reference) and REMOVE_FACILITIES_FROM_GROUP (version required; 409 when stale) and their VERSIONLESS_ variants, which apply to the group as it is (concurrent ones all land). 1 to 200 facilities each; added ones must be the tenant's; removing one not in the group changes nothing. ${LIMITS}`,
        tags,
        params: FacilityGroupIdParams,
        body: FacilityGroupActionsParameter,
        response: { 200: FacilityGroup, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["FACILITY_GROUP_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const res = await catalog.facilityGroupAction(
        { id: idOf(req), action: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.facilityGroup?.documentJson);
    },
  );
}
