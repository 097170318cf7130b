/**
 * /api/carriers (carriers, their configuration and its country service mappings) and
 * /api/configurations/transittime: the route table (schemas, permissions, lifecycle) and thin
 * handlers.
 */

import {
  Carrier,
  CarrierConfiguration,
  CarrierConfigurationForPut,
  CarrierCountryServiceMapping,
  CarrierCountryServiceMappingForCreation,
  CarrierCountryServiceMappingForUpdate,
  CarrierForCreation,
  CarrierIdParams,
  CarrierListQuery,
  CarrierPatchActions,
  MappingIdParams,
  StrippedCarriers,
  TransitTimeConfiguration,
  TransitTimeConfigurationForUpsert,
} from "@fop/contracts/rest/carriers";
import { errorResponses, listPage, plainJson } from "@fop/contracts/rest/common";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendCreated, sendDocument, sendDocumentArray, sendDocumentPage } from "../documents.ts";

const carrierTags = ["Carriers (Operations)"];
const configTags = ["Carriers Configuration (Operations)"];
const MAPPINGS = "/api/carriers/:carrierId/configuration/countryservicemappings";

export function carrierRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const carriers = clients.carriers;

  app.get(
    "/api/carriers",
    {
      ...plainJson,
      schema: {
        operationId: "getCarriers",
        summary: "List carriers",
        tags: carrierTags,
        querystring: CarrierListQuery,
        response: { 200: StrippedCarriers, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["CARRIER_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const q = req.query;
      const res = await carriers.listCarriers({ page: listPage(q) }, callOptions(req.ctx));
      return sendDocumentPage(
        reply,
        "carriers",
        res.carriers.map((c) => c.documentJson),
        { total: Number(res.total) },
      );
    },
  );

  app.post(
    "/api/carriers",
    {
      ...plainJson,
      schema: {
        operationId: "addCarrier",
        summary: "Create carrier",
        description:
          "The key is unique in the tenant (409 when taken). Credentials are stored sealed; no response ever shows more of them than their `key`.",
        tags: carrierTags,
        body: CarrierForCreation,
        response: { 201: Carrier, ...errorResponses(400, 401, 403, 409) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await carriers.createCarrier({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/carriers`, res.carrier);
    },
  );

  app.get(
    "/api/carriers/:carrierId",
    {
      ...plainJson,
      schema: {
        operationId: "getCarrier",
        summary: "Get carrier",
        tags: carrierTags,
        params: CarrierIdParams,
        response: { 200: Carrier, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CARRIER_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { carrierId } = req.params;
      const res = await carriers.getCarrier({ id: carrierId }, callOptions(req.ctx));
      return sendDocument(reply, res.carrier?.documentJson);
    },
  );

  app.patch(
    "/api/carriers/:carrierId",
    {
      ...plainJson,
      schema: {
        operationId: "patchCarrier",
        summary: "Update carrier",
        description:
          "ModifyCarrier actions on the version the body names. Credentials of the stored type are merged (send only what changes); another type replaces them.",
        tags: carrierTags,
        params: CarrierIdParams,
        body: CarrierPatchActions,
        response: { 200: Carrier, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { carrierId } = req.params;
      const res = await carriers.patchCarrier({ id: carrierId, body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.carrier?.documentJson);
    },
  );

  app.get(
    "/api/carriers/:carrierId/configuration",
    {
      ...plainJson,
      schema: {
        operationId: "getCarrierConfiguration",
        summary: "Get carrier config",
        description:
          "Retrieves the configuration for a specific carrier by its ID. If no configuration exists, a default one is created and returned.",
        tags: configTags,
        params: CarrierIdParams,
        response: { 200: CarrierConfiguration, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CARRIER_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { carrierId } = req.params;
      const res = await carriers.getConfiguration({ carrierId }, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );

  app.put(
    "/api/carriers/:carrierId/configuration",
    {
      ...plainJson,
      schema: {
        operationId: "putCarrierConfiguration",
        summary: "Update carrier config",
        description:
          "Replaces the complete configuration on the version the body names (409 when stale): return labels, weight adjustment, non-delivery days, country service mappings, pick-up times. Carrier-specific fields (GLS, FedEx, Bring, DHL V2, ...) are kept.",
        tags: configTags,
        params: CarrierIdParams,
        body: CarrierConfigurationForPut,
        response: { 200: CarrierConfiguration, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { carrierId } = req.params;
      const res = await carriers.putConfiguration({ carrierId, body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );

  app.get(
    MAPPINGS,
    {
      ...plainJson,
      schema: {
        operationId: "getCarrierCountryServiceMappings",
        summary: "List country service mappings",
        tags: configTags,
        params: CarrierIdParams,
        response: {
          200: {
            type: "array",
            items: CarrierCountryServiceMapping,
            title: "CarrierCountryServiceMappingList",
          },
          ...errorResponses(401, 403, 404),
        },
      },
      // As the reference: reading mappings needs CARRIER_WRITE.
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { carrierId } = req.params;
      const res = await carriers.listCountryServiceMappings({ carrierId }, callOptions(req.ctx));
      return sendDocumentArray(
        reply,
        res.mappings.map((m) => m.documentJson),
      );
    },
  );

  app.post(
    MAPPINGS,
    {
      ...plainJson,
      schema: {
        operationId: "createCarrierCountryServiceMapping",
        summary: "Create country service mapping",
        description:
          "carrierConfigurationVersion must be the configuration's current version (409 otherwise); the write moves it.",
        tags: configTags,
        params: CarrierIdParams,
        body: CarrierCountryServiceMappingForCreation,
        response: { 201: CarrierCountryServiceMapping, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { carrierId } = req.params;
      const res = await carriers.createCountryServiceMapping(
        { carrierId, body: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply.code(201), res.mapping?.documentJson);
    },
  );

  app.get(
    `${MAPPINGS}/:countryServiceMappingId`,
    {
      ...plainJson,
      schema: {
        operationId: "getCarrierCountryServiceMapping",
        summary: "Get country service mapping",
        tags: configTags,
        params: MappingIdParams,
        response: { 200: CarrierCountryServiceMapping, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const p = req.params;
      const res = await carriers.getCountryServiceMapping(
        { carrierId: p.carrierId, id: p.countryServiceMappingId },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.mapping?.documentJson);
    },
  );

  app.patch(
    `${MAPPINGS}/:countryServiceMappingId`,
    {
      ...plainJson,
      schema: {
        operationId: "updateCarrierCountryServiceMapping",
        summary: "Update country service mapping",
        description:
          "The fields the body gives replace the mapping's; carrierConfigurationVersion must be the configuration's current version (409 otherwise).",
        tags: configTags,
        params: MappingIdParams,
        body: CarrierCountryServiceMappingForUpdate,
        response: { 200: CarrierCountryServiceMapping, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const p = req.params;
      const res = await carriers.updateCountryServiceMapping(
        { carrierId: p.carrierId, id: p.countryServiceMappingId, body: req.body },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.mapping?.documentJson);
    },
  );

  app.delete(
    `${MAPPINGS}/:countryServiceMappingId`,
    {
      schema: {
        operationId: "deleteCarrierCountryServiceMapping",
        summary: "Delete country service mapping",
        description: "200 with an empty body; the configuration's version moves.",
        tags: configTags,
        params: MappingIdParams,
        response: { 200: { type: "null", description: "Deleted." }, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const p = req.params;
      await carriers.deleteCountryServiceMapping(
        { carrierId: p.carrierId, id: p.countryServiceMappingId },
        callOptions(req.ctx),
      );
      return reply.code(200).send();
    },
  );

  app.get(
    "/api/configurations/transittime",
    {
      ...plainJson,
      schema: {
        operationId: "getTransitTimeConfiguration",
        summary: "Get transit time config",
        description: "404 until the first PUT.",
        tags: configTags,
        response: { 200: TransitTimeConfiguration, ...errorResponses(401, 403, 404) },
      },
      // The reference names no permission here; ours are the carriers' (permissions.ts).
      config: { permissions: ["CARRIER_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await carriers.getTransitTimeConfiguration({}, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );

  app.put(
    "/api/configurations/transittime",
    {
      ...plainJson,
      schema: {
        operationId: "putTransitTimeConfiguration",
        summary: "Update transit time config",
        description:
          "Creates the configuration (the version is not checked then: there is none yet) or replaces it on the version the body names (409 when stale). 200 either way, as the reference answers.",
        tags: carrierTags,
        body: TransitTimeConfigurationForUpsert,
        response: { 200: TransitTimeConfiguration, ...errorResponses(400, 401, 403, 409) },
      },
      config: { permissions: ["CARRIER_WRITE"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await carriers.putTransitTimeConfiguration({ body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.configuration?.documentJson);
    },
  );
}
