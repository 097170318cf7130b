/** Returns' enumerations, in the reference's order, and its lists' filters. */
import { type Static, Type } from "@sinclair/typebox";
import { ListFilters, StringEnum } from "./schema.ts";

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

/** A repeated query parameter (`?x=a&x=b`): at most 50 values, of `values` when given. */
const repeated = (values?: readonly string[]) =>
  Type.Optional(Type.Array(values ? StringEnum(values) : Type.String({ maxLength: 256 }), { maxItems: 50 }));
const text = Type.Optional(Type.String({ maxLength: 256 }));

/** GET /api/itemreturnjobs's filters. */
export const ItemReturnJobListFilters = ListFilters("ItemReturnJobListFilters", {
  facilityId: Type.Optional(Type.String({ maxLength: 256, description: "facility to filter the results" })),
  itemReturnJobScannableCodes: repeated(),
  itemReturnScannableCodes: repeated(),
  itemReturnJobStatus: repeated(ITEM_RETURN_JOB_STATUSES),
  itemReturnStatus: repeated(ITEM_RETURN_STATUSES),
  searchTerm: text,
  anonymized: Type.Optional(Type.Boolean()),
  tenantOrderId: Type.Optional(
    Type.String({ maxLength: 256, description: "Jobs of this order (exact tenantOrderId); ours" }),
  ),
});
export type ItemReturnJobListFilters = Static<typeof ItemReturnJobListFilters>;

/** GET /api/itemreturns's filters. */
export const ItemReturnListFilters = ListFilters("ItemReturnListFilters", {
  searchTerm: text,
  itemReturnStatus: repeated(ITEM_RETURN_STATUSES),
  itemReturnLineItemStatus: repeated(RETURNED_LINE_ITEM_STATUSES),
  facilityRefs: repeated(),
  orderBy: Type.Optional(
    Type.String({ maxLength: 64, description: "Accepted; results are in creation order (by id)." }),
  ),
  anonymized: Type.Optional(Type.Boolean()),
});
export type ItemReturnListFilters = Static<typeof ItemReturnListFilters>;
