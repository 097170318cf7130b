/** Enumerations of the value types every family shares. */

/** A phone number's `type` (facility, carrier and consumer addresses). */
export const PHONE_NUMBER_TYPES = ["MOBILE", "PHONE"] as const;
export type PhoneNumberType = (typeof PHONE_NUMBER_TYPES)[number];
