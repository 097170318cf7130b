/**
 * The picking domain's data: a pick job and a pick run are JSON documents shaped exactly like the
 * platform's read models (reference schemas PickJob / PickRun), so what the service stores is what a
 * client reads. Nested shapes the domain never interprets (articles, addresses, stickers, ...) stay
 * `JsonObject`s; everything the rules look at is typed.
 */
import type {
  DeliveryChannel,
  LoadUnitAssignmentType,
  OperativeTransferType,
  PickingMethod,
  PickJobStatus,
  PickJobSubStatus,
  PickLineItemStatus,
  PickRunStatus,
  PickRunType,
  RecordingRule,
  ScanningType,
} from "@fop/contracts/picking";
import type { JsonObject, Json as JsonValue } from "@fop/kit/json";

// The enumerations are the contracts' (one statement for the gateway and this service).
export {
  PICK_JOB_STATUSES,
  PICK_JOB_SUB_STATUSES,
  PICK_LINE_ITEM_STATUSES,
  PICK_RUN_STATUSES,
  PICK_RUN_TYPES,
  PICKING_METHODS,
  type PickingMethod,
  type PickJobStatus,
  type PickJobSubStatus,
  type PickLineItemStatus,
  type PickRunStatus,
  type PickRunType,
} from "@fop/contracts/picking";
export type { JsonObject, JsonValue };

export interface User {
  userId?: string;
  username: string;
}

export interface MeasurementValidation {
  overPickHardTolerancePercentage?: number;
  overPickSoftTolerancePercentage?: number;
  shortPickHardTolerancePercentage?: number;
  shortPickSoftTolerancePercentage?: number;
}

export interface ScannedCode {
  code: string;
  quantity: number;
}

export interface PartialStockLocation {
  tenantPartialStockId: string;
  stockRef: string;
  quantity?: number;
  available?: number;
  picked?: number;
  stockEmptied?: boolean;
  location?: JsonObject;
  [key: string]: JsonValue | undefined;
}

export interface SubstituteLineItem {
  id: string;
  article: JsonObject & { tenantArticleId: string; title: string };
  quantity: number;
  picked?: number;
  pickedAt?: string;
  secondaryPicked?: number;
  secondaryQuantity?: number;
  [key: string]: JsonValue | undefined;
}

export interface RecordableAttribute {
  id: string;
  keyLocalized: Record<string, string>;
  recordingRule: RecordingRule;
  group?: string | null;
  value?: string | null;
  key?: string;
  originId?: string | null;
}

export interface PickLineItem {
  id: string;
  article: JsonObject & { tenantArticleId: string; title: string };
  quantity: number;
  picked: number;
  status: PickLineItemStatus;
  secondaryQuantity?: number;
  secondaryPicked?: number;
  pickedAt?: string;
  measurementUnitKey?: string;
  measurementValidation?: MeasurementValidation;
  scannableCodes?: string[];
  scannedCodes?: ScannedCode[];
  partialStockLocations?: PartialStockLocation[];
  allowedSubstitutes?: JsonObject[];
  substituteLineItems?: SubstituteLineItem[];
  recordableAttributes?: RecordableAttribute[];
  shortPickReason?: { reasonLocalized: Record<string, string>; reason?: string };
  stockEmptied?: boolean;
  originId?: string | null;
  pickJobLineItemRef?: string;
  globalLineItemId?: string;
  customAttributes?: JsonObject | null;
  stickers?: JsonObject[];
  tags?: JsonObject[];
  [key: string]: JsonValue | undefined | object;
}

export interface PickJob {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  shortId: string;
  facilityRef: string;
  orderDate: string;
  status: PickJobStatus;
  subStatus?: PickJobSubStatus;
  /** Deprecated mirror of subStatus (the platform keeps it for old clients). */
  statusReason?: string;
  pickLineItems: PickLineItem[];
  expectedPickLineItems?: JsonObject[];
  deliveryinformation: JsonObject & { channel: DeliveryChannel; targetTime?: string };
  workflowInformation: JsonObject & { isAvailable: boolean };
  documentsRef: string;
  documentHandling?: { sendLabel: { enabled: boolean } };
  resetBlocked: boolean;
  anonymized: boolean;
  orderRef?: string;
  tenantOrderId?: string;
  processId?: string;
  operativeProcessRef?: string;
  routingPlanRef?: string;
  pickRunRef?: string;
  assignedUsers?: User[];
  editor?: User;
  usersModificationHistory?: { modificationDate: string; userId?: string; username: string }[];
  preferredPickingMethods?: PickingMethod[];
  pickingTimes?: { startLatestAt?: string };
  paymentInformation?: { currency?: string };
  transfers?: { id: string; type: OperativeTransferType }[];
  pickingZones?: { zoneRef: string }[];
  stickers?: JsonObject[];
  tags?: JsonObject[];
  customAttributes?: JsonObject | null;
}

/** Who performs a change, and the clock/id source (injected so the domain stays pure). */
export interface ActionContext {
  now: Date;
  user: User;
  /** The caller's roles (scanningConfiguration.rolesWithOverwritingScanningPermission); absent: none. */
  roles?: readonly string[];
  newId: () => string;
  /** The tenant's picking rules (picking-config.ts); absent: the defaults. */
  rules?: PickingRules;
  /**
   * The pick jobs known to have at least one AVAILABLE load unit (asked of the loadunits service
   * only when the rules require a load unit for the change); absent: none known.
   */
  pickJobsWithLoadUnits?: ReadonlySet<string>;
}

/** A domain event kind raised by a change (the use case turns it into an outbox row). */
export type PickJobEventType =
  | "PICK_JOB_CREATED"
  | "PICK_JOB_STARTED"
  | "PICK_JOB_PICKED"
  | "PICK_JOB_CLOSED"
  | "PICK_JOB_ABORTED"
  | "PICK_JOB_CANCELED"
  | "PICK_JOB_OBSOLETE"
  | "PICK_JOB_PAUSED"
  | "PICK_JOB_RESTARTED"
  | "PICK_JOB_RESET"
  | "PICK_JOB_UPDATED";

/**
 * How a run builds its lines: one line per article (batch) or one per job line (multiOrder). The
 * deprecated PickRunTypes `batchPick` and `multiOrderPick` are accepted and kept as sent (a client
 * reads back the value it wrote), built as their replacements (`pickRunKind`).
 */
export type PickRunKind = "multiOrder" | "batch";

/** Where a pick run line's quantity comes from: one pick job line. */
export interface RunLineSource {
  pickJobRef: string;
  lineItemId: string;
  quantity: number;
}

export interface PickRunLineItem extends PickLineItem {
  pickJobRef?: string;
  globalLineItemIds?: string[];
}

export interface PickRun {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  facilityRef: string;
  pickJobRefs: string[];
  pickLineItems: PickRunLineItem[];
  pickRunType: PickRunType;
  status: PickRunStatus;
  editor?: User;
  /**
   * Internal (never in a response): run line id -> the pick job lines it was aggregated from, in the
   * order picked quantities are distributed onto them.
   */
  lineSources: Record<string, RunLineSource[]>;
}

/** The rules of the picking domain that a tenant's configuration governs (picking-config.ts derives them). */
export interface PickingRules {
  /** A pick job may be restarted (restartPickJobConfiguration.active). */
  readonly restartPickJob: boolean;
  /** A pick run may be taken over by another user (takeOverPickRunConfiguration.active). */
  readonly takeOverPickRun: boolean;
  /** Pick jobs a new pick run of each type may have. */
  readonly maxPickJobsPerRun: Readonly<Record<PickRunKind, number>>;
  /** Scanned codes must be among the line's scannable codes (CODE_MUST_BE_KNOWN). */
  readonly scanCodesMustBeKnown: boolean;
  /** A pick job may be taken over by another user (takeOverPickJobConfiguration.active). */
  readonly takeOverPickJob: boolean;
  /** The active configured short-pick reasons' texts; empty: any reason is accepted. */
  readonly shortPickReasons: readonly Readonly<Record<string, string>>[];
  /** How picks must be backed by scans (scanningConfiguration.scanningType). */
  readonly scanning: ScanningType;
  /** Roles whose holders may pick without the scans `scanning` asks for. */
  readonly scanningOverrideRoles: readonly string[];
  /** When load units must be assigned (loadUnitAssignmentConfiguration; absent: INACTIVE). */
  readonly loadUnitAssignment: Readonly<{ pickJob: LoadUnitAssignmentType; pickRun: LoadUnitAssignmentType }>;
}
