/** Load units' enumerations (load units, operative container types) and their lists' filters. */
import { type Static, Type } from "@sinclair/typebox";
import { ListFilters, LiteralUnion, StringEnum } from "./schema.ts";

/** A load unit's `status` (set by the service only). */
export const LOAD_UNIT_STATUSES = ["AVAILABLE", "OBSOLETE"] as const;
export type LoadUnitStatus = (typeof LOAD_UNIT_STATUSES)[number];

/**
 * An operative container type's `status`. The reference lists INACTIVE first; our OpenAPI document
 * has always listed ACTIVE first, and keeps it.
 */
export const OPERATIVE_CONTAINER_TYPE_STATUSES = ["ACTIVE", "INACTIVE"] as const;
export type OperativeContainerTypeStatus = (typeof OPERATIVE_CONTAINER_TYPE_STATUSES)[number];

/** A ScannableIdentifier's `searchType`: how a scanned code is matched against its identifiers. */
export const SCANNABLE_IDENTIFIER_SEARCH_TYPES = ["PREFIX", "SUFFIX", "CONTAINS"] as const;
export type ScannableIdentifierSearchType = (typeof SCANNABLE_IDENTIFIER_SEARCH_TYPES)[number];

/** The operative types an operative container type allows. */
export const OPERATIVE_TYPES = [
  "PICKING",
  "PACKING_SOURCE",
  "PACKING_TARGET",
  "HANDOVER",
  "SERVICE",
] as const;
export type OperativeType = (typeof OPERATIVE_TYPES)[number];
export const OperativeType = LiteralUnion(OPERATIVE_TYPES);

/** GET /api/loadunits's filters (its `locale` chooses a presentation, it filters nothing). */
export const LoadUnitListFilters = ListFilters("LoadUnitListFilters", {
  pickJobRef: Type.Optional(
    Type.String({ minLength: 1, maxLength: 256, description: "query load units with the given pickJobRef" }),
  ),
  statuses: Type.Optional(
    Type.Array(StringEnum(LOAD_UNIT_STATUSES, { title: "LoadUnitStatus" }), {
      maxItems: 10,
      description:
        "The statuses you want to filter the load units by (AVAILABLE, OBSOLETE). If not provided, only load units in status AVAILABLE will be returned. An empty array will return all load units regardless of status.",
    }),
  ),
});
export type LoadUnitListFilters = Static<typeof LoadUnitListFilters>;

/** GET /api/stacks's filters. */
export const StackListFilters = ListFilters("StackListFilters", {
  facilityRefs: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      maxItems: 50,
      description: "facilities to filter the results",
    }),
  ),
});
export type StackListFilters = Static<typeof StackListFilters>;

/** GET /api/operativecontainertypes's filters (its `locale` chooses a presentation). */
export const OperativeContainerTypeListFilters = ListFilters("OperativeContainerTypeListFilters", {
  operativeType: Type.Optional(OperativeType),
  scannableIdentifier: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});
export type OperativeContainerTypeListFilters = Static<typeof OperativeContainerTypeListFilters>;

/** GET /api/loadunittypes takes no filters (its `locale` chooses a presentation). */
export const LoadUnitTypeListFilters = ListFilters("LoadUnitTypeListFilters", {});
