/** The audit log's vocabulary: the entity types it records, and its list's filters. */
import { type Static, Type } from "@sinclair/typebox";
import { ListFilters, LiteralUnion } from "./schema.ts";

/**
 * The reference's audited entity types, plus ours for entities it audits under no type
 * (categories and the other resources this platform records events for).
 */
export const AUDITED_ENTITY_TYPES = [
  "PACK_JOB",
  "PICK_JOB",
  "PICK_RUN",
  "HANDOVER_JOB",
  "SHIPMENT",
  "PARCEL",
  "CUSTOM_SERVICE",
  "SERVICE_JOB",
  "LINKED_SERVICE_JOBS",
  "ORDER",
  "ROUTING_PLAN",
  "FACILITY",
  "FACILITY_GROUP",
  "FACILITY_CARRIER_CONNECTION",
  "FACILITY_CUSTOM_SERVICE",
  "ROUTING_STRATEGY",
  "STOW_JOB",
  // ours
  "CATEGORY",
  "LOAD_UNIT",
  "STACK",
  "OPERATIVE_CONTAINER_TYPE",
  "LOAD_UNIT_TYPE",
  "CARRIER",
  "CARRIER_CONFIGURATION",
  "CARRIER_COUNTRY_SERVICE_MAPPING",
  "TRANSIT_TIME_CONFIGURATION",
  "CANCELATION_REASON",
  "REROUTE_DESCRIPTION",
  "RETURN_CONFIGURATION",
  "PICKING_CONFIGURATION",
  "HANDOVER_CONFIGURATION",
  "ITEM_RETURN_JOB",
  "NOTIFICATION_CENTER_CONFIG",
  "SUBSCRIPTION",
] as const;
export type AuditedEntityType = (typeof AUDITED_ENTITY_TYPES)[number];
export const AuditedEntityType = LiteralUnion(AUDITED_ENTITY_TYPES);

/** GET /api/audits's filters. */
export const AuditListFilters = ListFilters("AuditListFilters", {
  entityRef: Type.Optional(Type.String({ maxLength: 256 })),
  entityType: Type.Optional(AuditedEntityType),
  trace: Type.Optional(Type.String({ maxLength: 256 })),
});
export type AuditListFilters = Static<typeof AuditListFilters>;
