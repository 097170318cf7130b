/** Audit schemas, matching the reference (Audit, AuditsResult, AuditSearchPayload, AuditPaginatedResult). */
import { Type } from "@sinclair/typebox";
import {
  DateTime,
  Filters,
  PageInfo,
  PageSizeQuery,
  SearchPayload,
  SearchQuery,
  SortEntry,
} from "../../schemas/common.ts";

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

const EntityType = Type.Union(AUDITED_ENTITY_TYPES.map((t) => Type.Literal(t)));
const Actor = Type.Object({
  id: Type.String(),
  details: Type.Object({ topic: Type.String(), username: Type.String() }),
});

export const Audit = Type.Object(
  {
    id: Type.String(),
    eventId: Type.String(),
    entityRef: Type.String(),
    entityType: Type.String(),
    entityVersion: Type.Number(),
    entityCreated: DateTime(),
    operation: Type.Object({ name: Type.String(), start: DateTime() }),
    actor: Actor,
    globalActor: Actor,
    client: Type.Object({ api: Type.String(), rawInfo: Type.String() }),
    trace: Type.String(),
    created: DateTime(),
    lastModified: DateTime(),
    anonymizationDate: DateTime(),
    deletionDate: DateTime(),
    isAnonymized: Type.Boolean(),
    version: Type.Number(),
  },
  { title: "Audit" },
);

export const AuditsResult = Type.Object(
  { audits: Type.Array(Audit), total: Type.Integer({ minimum: 0 }) },
  { title: "AuditsResult" },
);

export const AuditListQuery = Type.Object({
  size: PageSizeQuery(),
  startAfterId: Type.Optional(Type.String({ maxLength: 256 })),
  entityRef: Type.Optional(Type.String({ maxLength: 256 })),
  entityType: Type.Optional(EntityType),
  trace: Type.Optional(Type.String({ maxLength: 256 })),
});

export const AuditSearchQuery = SearchQuery("AuditSearchQuery", {
  entityRef: Filters.StringFilter,
  entityType: Filters.EnumFilter(AUDITED_ENTITY_TYPES),
  trace: Filters.StringFilter,
});
export const AuditSearchPayload = SearchPayload(
  "AuditSearchPayload",
  AuditSearchQuery,
  SortEntry("AuditSort", ["created"]),
);

export const AuditPaginatedResult = Type.Object(
  { audits: Type.Array(Audit), pageInfo: PageInfo, total: Type.Optional(Type.Integer({ minimum: 0 })) },
  { title: "AuditPaginatedResult" },
);
