/** Audit schemas, matching the reference (Audit, AuditsResult, AuditSearchPayload, AuditPaginatedResult). */

import { Type } from "@sinclair/typebox";
import { AUDITED_ENTITY_TYPES, AuditListFilters } from "../audit.ts";
import {
  DateTime,
  Filters,
  listQuery,
  PageInfo,
  PageSizeQuery,
  SearchPayload,
  SearchQuery,
  SortEntry,
} from "./common.ts";

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

/** GET /api/audits: its filters (declared in the contracts) and the page parameters. */
export const AuditListQuery = listQuery(AuditListFilters, {
  size: PageSizeQuery(),
  startAfterId: Type.Optional(Type.String({ maxLength: 256 })),
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
