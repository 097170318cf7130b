/**
 * Picking's enumerations: pick jobs, pick runs and the picking configuration. Each array is in the
 * reference's order (the OpenAPI document and the GraphQL schema list the values in it).
 */
import { type Static, Type } from "@sinclair/typebox";
import { CommaList, ListFilters, StringEnum } from "./schema.ts";

/** The reference's PickJobStatus. */
export const PICK_JOB_STATUSES = [
  "ABORTED",
  "OPEN",
  "IN_PROGRESS",
  "CLOSED",
  "PICKED",
  "REROUTED",
  "REJECTED",
  "RESTOWED",
  "EXPIRED",
  "CANCELED",
  "OBSOLETE",
  "WAITING_FOR_INPUT",
  "PAUSED",
] as const;
export type PickJobStatus = (typeof PICK_JOB_STATUSES)[number];

/** The reference's PickJobStatusUnprotected: the statuses the deprecated ModifyPickJob `status` may set. */
export const PICK_JOB_STATUSES_UNPROTECTED = [
  "OPEN",
  "IN_PROGRESS",
  "CLOSED",
  "PICKED",
  "REROUTED",
  "REJECTED",
  "RESTOWED",
  "EXPIRED",
  "PAUSED",
  "WAITING_FOR_INPUT",
] as const satisfies readonly PickJobStatus[];
export type PickJobStatusUnprotected = (typeof PICK_JOB_STATUSES_UNPROTECTED)[number];

/** The reference's PickJobSubStatus: the reason for the current status. */
export const PICK_JOB_SUB_STATUSES = [
  "SHORT_PICKED",
  "ZERO_PICKED",
  "WAITING_FOR_RELEASE_TIME",
  "ORDER_MODIFIED",
  "PROCESS_REROUTE",
  "MANUAL_REROUTE",
  "SHORT_PICK_REROUTE",
  "TIME_TRIGGERED",
  "STOCK_ZEROED",
  "PICK_JOB_ABORTED",
  "RECALCULATION",
] as const;
export type PickJobSubStatus = (typeof PICK_JOB_SUB_STATUSES)[number];

/** The reference's PickLineItemStatus. */
export const PICK_LINE_ITEM_STATUSES = ["OPEN", "IN_PROGRESS", "CLOSED"] as const;
export type PickLineItemStatus = (typeof PICK_LINE_ITEM_STATUSES)[number];

/** The reference's PickingMethodEnum (BATCH_PICKING is the deprecated name of BATCH). */
export const PICKING_METHODS = ["SINGLE_ORDER", "MULTI_ORDER", "BATCH_PICKING", "BATCH"] as const;
export type PickingMethod = (typeof PICKING_METHODS)[number];

/** The reference's PickJobDeliveryInformationChannel. */
export const DELIVERY_CHANNELS = ["COLLECT", "SHIPPING"] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/** A pick job's shipping `serviceLevel` (PickjobDeliveryInformationForCreation). */
export const SERVICE_LEVELS = ["DELIVERY", "SAMEDAY"] as const;
export type ServiceLevel = (typeof SERVICE_LEVELS)[number];

/** The reference's OperativeTransfer `type`. */
export const OPERATIVE_TRANSFER_TYPES = ["SUPPLIER", "RECEIVER"] as const;
export type OperativeTransferType = (typeof OPERATIVE_TRANSFER_TYPES)[number];

/** A RecordableAttribute's `recordingRule` (pick jobs, load units). */
export const RECORDING_RULES = ["OPTIONAL", "MANDATORY"] as const;
export type RecordingRule = (typeof RECORDING_RULES)[number];

/** The reference's PickingScanningConfigurationEnum: how picks must be backed by scans. */
export const SCANNING_TYPES = ["MUST_SCAN_FIRST", "MUST_SCAN_EACH", "SCAN_NOT_REQUIRED"] as const;
export type ScanningType = (typeof SCANNING_TYPES)[number];

/** The reference's LoadUnitAssignmentType: when load units must be assigned. */
export const LOAD_UNIT_ASSIGNMENT_TYPES = ["INACTIVE", "AT_START", "AT_END", "DURING_PICKING"] as const;
export type LoadUnitAssignmentType = (typeof LOAD_UNIT_ASSIGNMENT_TYPES)[number];

/** The reference's PickRunStatus. */
export const PICK_RUN_STATUSES = ["OPEN", "IN_PROGRESS", "CLOSED", "PAUSED", "CANCELED", "OBSOLETE"] as const;
export type PickRunStatus = (typeof PICK_RUN_STATUSES)[number];

/**
 * The reference's PickRunType. `batchPick` and `multiOrderPick` are deprecated names of `batch` and
 * `multiOrder`.
 */
export const PICK_RUN_TYPES = ["multiOrderPick", "multiOrder", "batchPick", "batch"] as const;
export type PickRunType = (typeof PICK_RUN_TYPES)[number];

/** GET /api/pickjobs's orderBy: the platform's values (its SDK's PickJobOrderBy), then ours (see the picking README). */
export const PICK_JOB_ORDER_BY = [
  "TARGET_TIME_DESC",
  "TARGET_TIME_ASC",
  "LAST_MODIFIED_DESC",
  "LAST_MODIFIED_ASC",
  "ORDER_DATE_DESC",
  "ORDER_DATE_ASC",
  "LAST_MODIFIED_BY_USER_DESC",
  "LAST_MODIFIED_BY_USER_ASC",
  ...["id", "created", "lastModified", "orderDate", "targetTime"].flatMap((f) => [f, `-${f}`]),
] as const;

const text = (description?: string) => Type.Optional(Type.String(description ? { description } : {}));
const instant = (description: string) => Type.Optional(Type.String({ format: "date-time", description }));

/** GET /api/pickjobs's filters (the reference's, then ours: see the picking README). */
export const PickJobListFilters = ListFilters("PickJobListFilters", {
  searchTerm: text(
    "Search term over multiple fields, like tenantOrderId, consumerName, tenantArticleId and more",
  ),
  carrierKeys: CommaList(Type.String(), { maxItems: 100, description: "Carrier keys" }),
  startOrderDate: text("Start of the orderDate range"),
  endOrderDate: text("End of the orderDate range"),
  orderRef: text(),
  facilityRef: text(),
  assignedUser: text("The assigned user on this entity - id or username"),
  status: CommaList(Type.String(), { maxItems: 13, description: "Pick job statuses" }),
  zoneRefs: CommaList(Type.String(), { maxItems: 100, description: "Picking zones" }),
  tenantOrderId: text(),
  channel: Type.Optional(StringEnum(DELIVERY_CHANNELS, { description: "The channel of the pickJob" })),
  consumerName: text(),
  shortId: text(),
  articleTitle: text(),
  anonymized: Type.Optional(Type.Boolean()),
  orderBy: Type.Optional(
    StringEnum(PICK_JOB_ORDER_BY, {
      title: "PickJobOrderBy",
      description:
        "Attribute to order pick jobs by (the platform's values; the field names id, created, lastModified, orderDate, targetTime, '-' first for descending, are ours). Default: id (creation order).",
    }),
  ),
  startTargetTime: instant("Start date range for pick jobs"),
  endTargetTime: instant("End date range for pick jobs"),
  pickJobRefs: CommaList(Type.String(), { maxItems: 100, description: "Pick job ids" }),
  modifiedByUsername: text("The user name of the last modifier"),
});
export type PickJobListFilters = Static<typeof PickJobListFilters>;
