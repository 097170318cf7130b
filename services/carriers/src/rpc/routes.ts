/** CarriersService handlers: read the request context, call the use case, map the result. Nothing else. */
import type { ConnectRouter } from "@connectrpc/connect";
import {
  CarrierConfigurationForPut,
  CarrierCountryServiceMappingForCreation,
  CarrierCountryServiceMappingForUpdate,
  CarrierForCreation,
  CarrierPatchActions,
  TransitTimeConfigurationForUpsert,
} from "@fop/contracts/rest/carriers";
import { readBody } from "@fop/kit/rpc/body";
import { listPage } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { CarriersService, type Place } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import * as carriers from "../usecases/carriers.ts";
import * as configs from "../usecases/configurations.ts";
import type { CarriersDeps } from "../usecases/deps.ts";
import { estimate } from "../usecases/estimate.ts";
import * as transit from "../usecases/transit-time.ts";
import {
  storedCarrierMessage,
  storedConfigurationMessage,
  toCarrierMessage,
  toConfigurationMessage,
  toMappingMessage,
  toTransitTimeMessage,
} from "./mapper.ts";

const place = (p: Place | undefined) =>
  p && { countryCode: p.countryCode, postalCode: p.postalCode, province: p.province };

export function carrierRoutes(deps: CarriersDeps) {
  return (router: ConnectRouter) =>
    router.service(CarriersService, {
      async createCarrier(req, hctx) {
        return {
          carrier: toCarrierMessage(
            await carriers.createCarrier(deps, requestContext(hctx), readBody(CarrierForCreation, req.body)),
          ),
        };
      },
      async getCarrier(req, hctx) {
        return {
          carrier: storedCarrierMessage(await carriers.getCarrier(deps, requestContext(hctx), req.id)),
        };
      },
      async listCarriers(req, hctx) {
        const r = await carriers.listCarriers(deps, requestContext(hctx), listPage(req.page));
        return {
          carriers: r.carriers.map((c) => toCarrierMessage(c.carrier, c.stripped)),
          total: BigInt(r.total),
        };
      },
      async patchCarrier(req, hctx) {
        return {
          carrier: toCarrierMessage(
            await carriers.patchCarrier(
              deps,
              requestContext(hctx),
              req.id,
              readBody(CarrierPatchActions, req.body),
            ),
          ),
        };
      },

      async getConfiguration(req, hctx) {
        const c = await configs.readConfiguration(deps, requestContext(hctx), req.carrierId);
        return { configuration: storedConfigurationMessage(c) };
      },
      async batchGetConfigurations(req, hctx) {
        const list = await configs.readConfigurations(deps, requestContext(hctx), req.carrierIds);
        return {
          configurations: list.map((c) => ({
            carrierId: c.carrierRef,
            configuration: storedConfigurationMessage(c),
          })),
        };
      },
      async putConfiguration(req, hctx) {
        const c = await configs.putConfiguration(
          deps,
          requestContext(hctx),
          req.carrierId,
          readBody(CarrierConfigurationForPut, req.body),
        );
        return { configuration: toConfigurationMessage(c) };
      },

      async listCountryServiceMappings(req, hctx) {
        const r = await configs.listMappings(deps, requestContext(hctx), req.carrierId);
        return { mappings: r.mappings.map((m) => toMappingMessage(r.config, m)) };
      },
      async createCountryServiceMapping(req, hctx) {
        const r = await configs.createMapping(
          deps,
          requestContext(hctx),
          req.carrierId,
          readBody(CarrierCountryServiceMappingForCreation, req.body),
        );
        return { mapping: toMappingMessage(r.config, r.mapping) };
      },
      async getCountryServiceMapping(req, hctx) {
        const r = await configs.getMapping(deps, requestContext(hctx), req.carrierId, req.id);
        return { mapping: toMappingMessage(r.config, r.mapping) };
      },
      async updateCountryServiceMapping(req, hctx) {
        const r = await configs.patchMapping(
          deps,
          requestContext(hctx),
          req.carrierId,
          req.id,
          readBody(CarrierCountryServiceMappingForUpdate, req.body),
        );
        return { mapping: toMappingMessage(r.config, r.mapping) };
      },
      async deleteCountryServiceMapping(req, hctx) {
        const r = await configs.deleteMapping(deps, requestContext(hctx), req.carrierId, req.id);
        return { carrierConfigurationVersion: BigInt(r.config.version) };
      },

      async getTransitTimeConfiguration(_req, hctx) {
        return {
          configuration: toTransitTimeMessage(await transit.getTransitTime(deps, requestContext(hctx))),
        };
      },
      async putTransitTimeConfiguration(req, hctx) {
        const r = await transit.upsertTransitTime(
          deps,
          requestContext(hctx),
          readBody(TransitTimeConfigurationForUpsert, req.body),
        );
        return { configuration: toTransitTimeMessage(r.config), created: r.created };
      },

      async estimateDeliveryDates(req, hctx) {
        const r = await estimate(deps, requestContext(hctx), {
          carrierId: req.carrierId,
          handoverAt: req.handoverAt,
          timeZone: req.timeZone,
          source: place(req.source) as never,
          destination: place(req.destination) as never,
        });
        return {
          countryServiceMappingId: r.mappingId,
          shippingDate: r.shippingDate,
          earliestDeliveryDate: r.earliestDeliveryDate,
          latestDeliveryDate: r.latestDeliveryDate,
          deliveryDate: r.deliveryDate,
          calculationStrategy: r.calculationStrategy,
          minTransitDays: r.minTransitDays,
          maxTransitDays: r.maxTransitDays,
        };
      },
    });
}
