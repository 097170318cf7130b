/** /api/facilities: the facility registry's routes. */
import { FacilityListFilters } from "@fop/contracts/facilities";
import { errorResponses, listFilters, listPage } from "@fop/contracts/rest/common";
import {
  Facility,
  FacilityForCreation,
  FacilityForReplacement,
  FacilityIdParams,
  FacilityListQuery,
  FacilityPatch,
  StrippedFacilities,
} from "@fop/contracts/rest/facilities";
import { callOptions } from "@fop/kit/rpc/client";
import { type Static, Type } from "@sinclair/typebox";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { parseDocument, sendCreated, sendDocument } from "../documents.ts";

const tags = ["Facilities"];

type FacilityDocument = Static<typeof Facility>;

/** A facility as the list shows it (the reference's StrippedFacility): the address's fields at the top. */
function stripped(doc: FacilityDocument) {
  const { id, version, created, lastModified, name, type, status, tenantFacilityId, address } = doc;
  const {
    customAttributes: _ca,
    phoneNumbers: _p,
    emailAddresses: _e,
    resolvedCoordinates: _c,
    resolvedTimeZone: _t,
    addressType: _a,
    ...flat
  } = (address ?? {}) as Record<string, unknown>;
  return {
    id,
    version,
    created,
    lastModified,
    name,
    type,
    status,
    ...(tenantFacilityId !== undefined ? { tenantFacilityId } : {}),
    ...flat,
  };
}

const urn = [{ param: "facilityId", entity: "facility", field: "tenantFacilityId" }] as const;
export function facilityRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  app.get(
    "/api/facilities",
    {
      schema: {
        operationId: "getAllFacilities",
        summary: "List facilities",
        tags,
        querystring: FacilityListQuery,
        response: { 200: StrippedFacilities, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["FACILITY_READ"], lifecycle: "GA" },
    },
    async (req) => {
      const res = await clients.catalog.listFacilities(
        { page: listPage(req.query), filters: listFilters(FacilityListFilters, req.query) },
        callOptions(req.ctx),
      );
      return {
        facilities: res.facilities.map((f) => stripped(parseDocument<FacilityDocument>(f.documentJson))),
        total: Number(res.total),
      };
    },
  );

  app.post(
    "/api/facilities",
    {
      schema: {
        operationId: "addFacility",
        summary: "Create facility",
        tags,
        body: FacilityForCreation,
        response: { 201: Facility, ...errorResponses(400, 401, 403, 409) },
      },
      config: { permissions: ["FACILITY_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await clients.catalog.createFacility({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/facilities`, res.facility);
    },
  );

  app.get(
    "/api/facilities/:facilityId",
    {
      schema: {
        operationId: "getFacility",
        summary: "Get facility",
        tags,
        params: FacilityIdParams,
        response: { 200: Facility, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["FACILITY_READ"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { facilityId } = req.params;
      const res = await clients.catalog.getFacility({ id: facilityId }, callOptions(req.ctx));
      return sendDocument(reply, res.facility?.documentJson);
    },
  );

  app.patch(
    "/api/facilities/:facilityId",
    {
      schema: {
        operationId: "patchFacility",
        summary: "Modify facility",
        description:
          "Changes the fields the body names (null removes an optional field). The deprecated {version, actions: [ModifyFacility]} form is still accepted.",
        tags,
        params: FacilityIdParams,
        body: FacilityPatch,
        response: { 200: Facility, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["FACILITY_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { facilityId } = req.params;
      const res = await clients.catalog.modifyFacility(
        { id: facilityId, body: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.facility?.documentJson);
    },
  );

  app.put(
    "/api/facilities/:facilityId",
    {
      schema: {
        operationId: "replaceFacility",
        summary: "Replace facility",
        description:
          "Replaces the facility on the version the body names: every field takes the body's value, a field it leaves out is removed.",
        tags,
        params: FacilityIdParams,
        body: FacilityForReplacement,
        response: { 200: Facility, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["FACILITY_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { facilityId } = req.params;
      const res = await clients.catalog.replaceFacility(
        { id: facilityId, body: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.facility?.documentJson);
    },
  );

  app.delete(
    "/api/facilities/:facilityId",
    {
      schema: {
        operationId: "deleteFacility",
        summary: "Delete facility",
        tags,
        params: FacilityIdParams,
        querystring: Type.Object({ forceDeletion: Type.Optional(Type.Boolean({ default: false })) }),
        response: { 200: { type: "null", description: "Deleted." }, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["FACILITY_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { facilityId } = req.params;
      const { forceDeletion } = req.query;
      await clients.catalog.deleteFacility(
        { id: facilityId, forceDeletion: forceDeletion ?? false },
        callOptions(req.ctx),
      );
      return reply.code(200).send();
    },
  );
}
