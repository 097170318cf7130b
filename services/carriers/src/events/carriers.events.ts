/**
 * The carriers service's events (our own kinds: the spec names none for these resources).
 * CARRIER_CREATED / _UPDATED, CARRIER_CONFIGURATION_CREATED / _UPDATED,
 * CARRIER_COUNTRY_SERVICE_MAPPING_CREATED / _UPDATED / _DELETED (entityVersion: the
 * configuration's version after the write), TRANSIT_TIME_CONFIGURATION_CREATED / _UPDATED.
 * Payload: the entity after the change (a deleted mapping as it was). A carrier's payload is its
 * document: credentials only as {key}, never a secret (events are kept by audit).
 */
import { type DomainEvent, entityEvent } from "@fop/kit/events/envelope";
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

export const carrierEvent = (change: Change, c: Carrier): DomainEvent =>
  entityEvent(`CARRIER_${change}`, "CARRIER", c, { schema: CarrierSchema, message: toCarrierMessage(c) });

export const configurationEvent = (change: Change, c: CarrierConfiguration): DomainEvent =>
  entityEvent(`CARRIER_CONFIGURATION_${change}`, "CARRIER_CONFIGURATION", c, {
    schema: CarrierConfigurationSchema,
    message: toConfigurationMessage(c),
  });

export const mappingEvent = (
  change: Change | "DELETED",
  config: CarrierConfiguration,
  m: CountryServiceMapping,
): DomainEvent =>
  // A mapping has no version of its own: the configuration's.
  entityEvent(
    `CARRIER_COUNTRY_SERVICE_MAPPING_${change}`,
    "CARRIER_COUNTRY_SERVICE_MAPPING",
    { id: m.id, version: config.version, created: config.created },
    { schema: CountryServiceMappingSchema, message: toMappingMessage(config, m) },
  );

export const transitTimeEvent = (change: Change, t: TransitTimeConfiguration): DomainEvent =>
  entityEvent(`TRANSIT_TIME_CONFIGURATION_${change}`, "TRANSIT_TIME_CONFIGURATION", t, {
    schema: TransitTimeConfigurationSchema,
    message: toTransitTimeMessage(t),
  });
