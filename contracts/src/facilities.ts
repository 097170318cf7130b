/** Facilities' enumerations (the catalog's registry), in the reference's order, and their lists' filters. */
import { type Static, Type } from "@sinclair/typebox";
import { ListFilters, LiteralUnion } from "./schema.ts";

/** A facility's `type`: ManagedFacility or Supplier. */
export const FACILITY_TYPES = ["MANAGED_FACILITY", "SUPPLIER"] as const;
export type FacilityType = (typeof FACILITY_TYPES)[number];

/** A facility's `status`. */
export const FACILITY_STATUSES = ["ONLINE", "SUSPENDED", "OFFLINE"] as const;
export type FacilityStatus = (typeof FACILITY_STATUSES)[number];

/** A facility's `locationType`. */
export const LOCATION_TYPES = ["STORE", "WAREHOUSE", "EXTERNAL"] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

/**
 * The reference's facility fields the registry stores as given, without interpreting them (a
 * facility's `details`): the gateway's schemas declare one property for each, the catalog keeps
 * these keys of a body and answers them in this order.
 */
export const FACILITY_DETAIL_KEYS = [
  "capacityEnabled",
  "capacityPlanningTimeframe",
  "closingDays",
  "configs",
  "contact",
  "fulfillmentProcessBuffer",
  "operativeCosts",
  "pickingMethods",
  "pickingTimes",
  "scanningRule",
  "services",
  "tags",
] as const;
export type FacilityDetailKey = (typeof FACILITY_DETAIL_KEYS)[number];

/** GET /api/facilities's orderBy. */
export const FACILITY_ORDER_BY = ["NAME", "CREATED", "POSTAL_CODE_ASC"] as const;

/** GET /api/facilities's filters. */
export const FacilityListFilters = ListFilters("FacilityListFilters", {
  status: Type.Optional(Type.Array(LiteralUnion(FACILITY_STATUSES))),
  type: Type.Optional(Type.Array(LiteralUnion(FACILITY_TYPES))),
  tenantFacilityId: Type.Optional(Type.String({ maxLength: 256 })),
  orderBy: Type.Optional(LiteralUnion(FACILITY_ORDER_BY, "FacilityOrderBy")),
});
export type FacilityListFilters = Static<typeof FacilityListFilters>;

/** GET /api/facilitygroups's filters. */
export const FacilityGroupListFilters = ListFilters("FacilityGroupListFilters", {
  tenantFacilityGroupId: Type.Optional(Type.String({ maxLength: 256 })),
});
export type FacilityGroupListFilters = Static<typeof FacilityGroupListFilters>;
