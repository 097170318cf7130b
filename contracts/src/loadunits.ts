/** Load units' enumerations: load units and operative container types. */

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
