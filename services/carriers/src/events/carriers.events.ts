/**
 * The carriers service's events (our own kinds: the spec names none for these resources).
 * CARRIER_CREATED / _UPDATED, CARRIER_CONFIGURATION_CREATED / _UPDATED,
 * CARRIER_COUNTRY_SERVICE_MAPPING_CREATED / _UPDATED / _DELETED (entityVersion: the
 * configuration's version after the write), TRANSIT_TIME_CONFIGURATION_CREATED / _UPDATED.
 * Payload: the entity after the change (a deleted mapping as it was). A carrier's payload is its
 * document: credentials only as {key}, never a secret (events are kept by audit).
 */
import { create } from "@bufbuild/protobuf";
import type { DomainEvent } from "@fop/kit/events/envelope";
import {
  CarrierConfigurationSchema,
  CarrierSchema,
  CountryServiceMappingSchema,
  TransitTimeConfigurationSchema,
} from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import type {
  Carrier,
  CarrierConfiguration,
  CountryServiceMapping,
  TransitTimeConfiguration,
} from "../domain/types.ts";
import {
  toCarrierMessage,
  toConfigurationMessage,
  toMappingMessage,
  toTransitTimeMessage,
} from "../rpc/mapper.ts";

type Change = "CREATED" | "UPDATED";

export const carrierEvent = (change: Change, c: Carrier): DomainEvent => ({
  type: `CARRIER_${change}`,
  entityType: "CARRIER",
  entityRef: c.id,
  entityVersion: c.version,
  entityCreated: new Date(c.created),
  payload: { schema: CarrierSchema, message: create(CarrierSchema, toCarrierMessage(c)) },
});

export const configurationEvent = (change: Change, c: CarrierConfiguration): DomainEvent => ({
  type: `CARRIER_CONFIGURATION_${change}`,
  entityType: "CARRIER_CONFIGURATION",
  entityRef: c.id,
  entityVersion: c.version,
  entityCreated: new Date(c.created),
  payload: {
    schema: CarrierConfigurationSchema,
    message: create(CarrierConfigurationSchema, toConfigurationMessage(c)),
  },
});

export const mappingEvent = (
  change: Change | "DELETED",
  config: CarrierConfiguration,
  m: CountryServiceMapping,
): DomainEvent => ({
  type: `CARRIER_COUNTRY_SERVICE_MAPPING_${change}`,
  entityType: "CARRIER_COUNTRY_SERVICE_MAPPING",
  entityRef: m.id,
  entityVersion: config.version,
  entityCreated: new Date(config.created),
  payload: {
    schema: CountryServiceMappingSchema,
    message: create(CountryServiceMappingSchema, toMappingMessage(config, m)),
  },
});

export const transitTimeEvent = (change: Change, t: TransitTimeConfiguration): DomainEvent => ({
  type: `TRANSIT_TIME_CONFIGURATION_${change}`,
  entityType: "TRANSIT_TIME_CONFIGURATION",
  entityRef: t.id,
  entityVersion: t.version,
  entityCreated: new Date(t.created),
  payload: {
    schema: TransitTimeConfigurationSchema,
    message: create(TransitTimeConfigurationSchema, toTransitTimeMessage(t)),
  },
});
