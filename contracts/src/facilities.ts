/** Facilities' enumerations (the catalog's registry), in the reference's order. */

/** A facility's `type`: ManagedFacility or Supplier. */
export const FACILITY_TYPES = ["MANAGED_FACILITY", "SUPPLIER"] as const;
export type FacilityType = (typeof FACILITY_TYPES)[number];

/** A facility's `status`. */
export const FACILITY_STATUSES = ["ONLINE", "SUSPENDED", "OFFLINE"] as const;
export type FacilityStatus = (typeof FACILITY_STATUSES)[number];

/** A facility's `locationType`. */
export const LOCATION_TYPES = ["STORE", "WAREHOUSE", "EXTERNAL"] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];
