/** Carriers' enumerations: carriers, their configurations and the transit time configuration. */

/** A carrier's `status`. */
export const CARRIER_STATUSES = ["ACTIVE", "INACTIVE"] as const;
export type CarrierStatus = (typeof CARRIER_STATUSES)[number];

/** A carrier's `deliveryType`. */
export const CARRIER_DELIVERY_TYPES = ["SAMEDAY", "DELIVERY"] as const;
export type CarrierDeliveryType = (typeof CARRIER_DELIVERY_TYPES)[number];

/** A carrier's `lifecycle`. */
export const CARRIER_LIFECYCLES = ["GA", "BETA", "ALPHA"] as const;
export type CarrierLifecycle = (typeof CARRIER_LIFECYCLES)[number];

/** The transit time configuration's `calculationStrategy`: which delivery date is the one named. */
export const CALCULATION_STRATEGIES = ["EARLIEST", "LATEST"] as const;
export type CalculationStrategy = (typeof CALCULATION_STRATEGIES)[number];

/** `recurringNonDeliveryWeekdays` of a carrier configuration, Monday first (as the reference lists them). */
export const WEEKDAYS = [
  "MONDAY",
  "TUESDAY",
  "WEDNESDAY",
  "THURSDAY",
  "FRIDAY",
  "SATURDAY",
  "SUNDAY",
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** A non-delivery day's `nonDeliveryType`: SINGLE (that date) or RECURRING (that day every year). */
export const NON_DELIVERY_TYPES = ["SINGLE", "RECURRING"] as const;
export type NonDeliveryType = (typeof NON_DELIVERY_TYPES)[number];
