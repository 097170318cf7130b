/** Returns' enumerations, in the reference's order. */

/** The reference's ItemReturnJob `status`. */
export const ITEM_RETURN_JOB_STATUSES = ["OPEN", "IN_PROGRESS", "FINISHED", "CANCELED"] as const;
export type ItemReturnJobStatus = (typeof ITEM_RETURN_JOB_STATUSES)[number];

/** The reference's ItemReturn `status`. */
export const ITEM_RETURN_STATUSES = [
  "ANNOUNCED",
  "OPEN",
  "IN_PROGRESS",
  "PAUSED",
  "FINISHED",
  "WAITING_FOR_INPUT",
  "CANCELED",
  "OBSOLETE",
] as const;
export type ItemReturnStatus = (typeof ITEM_RETURN_STATUSES)[number];

/** The `status` of a returned (or returned not returnable) line item of an item return. */
export const RETURNED_LINE_ITEM_STATUSES = [
  "OPEN",
  "IN_PROGRESS",
  "WAITING_FOR_INPUT",
  "REJECTED",
  "ACCEPTED",
  "CANCELED",
] as const;
export type ReturnedLineItemStatus = (typeof RETURNED_LINE_ITEM_STATUSES)[number];

/** The reference's ReturnedLineItemRefund `status`. */
export const REFUND_STATUSES = ["OPEN", "IN_PROGRESS", "CLOSED"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
