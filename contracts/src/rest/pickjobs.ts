/**
 * Pick job request/response schemas, written to match the reference (the platform's public API
 * description): schema names (as `title`), field names, enums, required lists, limits, patterns and
 * closed objects as published.
 *
 * - `allOf` compositions of the reference are flattened into one object with the union of the
 *   members' properties, their required lists and the tighter of their limits.
 * - Bodies that are a union discriminated by a field (actions by `name`, deprecated PATCH actions by
 *   `action`) are validated in two passes: the route schema checks the discriminator (and documents
 *   the body), then the body is checked against its variant's own schema (`*_SCHEMAS`), so a 400
 *   names the variant's offending field instead of Ajv's "must match a schema in anyOf".
 * - Read models (PickJob, PickLineItem, ...) list every property and stay open unless the reference
 *   closes them, so nothing a client should see is dropped by a response serializer.
 */

import { type Static, type TSchema, Type } from "@sinclair/typebox";
import {
  DELIVERY_CHANNELS,
  OPERATIVE_TRANSFER_TYPES,
  PICK_JOB_STATUSES,
  PICK_JOB_STATUSES_UNPROTECTED,
  PICK_JOB_SUB_STATUSES,
  PICKING_METHODS,
  PickJobListFilters,
  SERVICE_LEVELS,
} from "../picking.ts";
import { actionParameter, LooseVersion, patchAction } from "./actions.ts";
import { ConsumerAddress } from "./address.ts";
import {
  ARTICLE_LIMITS,
  ArticleAttributeItem,
  PickLineItemArticle,
  SubstituteLineItemArticle,
  UnitKey,
} from "./article.ts";
import { CarrierProductCategory, CarrierServices } from "./carrier-services.ts";
import {
  CustomAttributes,
  closed,
  DateTime,
  Filters,
  FreeObject,
  LocaleString,
  listQuery,
  nullable,
  OneOf,
  opt,
  PageInfo,
  SearchPayload,
  SearchQuery,
  SortEntry,
  StringEnum,
} from "./common.ts";
import { PaymentInformation } from "./currency.ts";
import { LoadUnitLineItemForCreation } from "./load-unit-line-item.ts";
import {
  PickingMethodEnum,
  PickingScanningConfigurationEnum,
  PickLineItemStatus,
  ScanningRuleConfiguration,
  ScanningRuleValue,
} from "./picking.ts";
import {
  RecordableAttribute,
  RecordableAttributeForCreation,
  RecordableAttributeForUpdate,
} from "./recordable-attribute.ts";
import { AssignedUser, AssignedUserForCreation, Editor } from "./user.ts";

// --- enums -------------------------------------------------------------------------------------------

export const PickJobStatus = StringEnum(PICK_JOB_STATUSES, {
  title: "PickJobStatus",
  description: "The status of a pickjob.",
});

export const PickJobStatusUnprotected = StringEnum(PICK_JOB_STATUSES_UNPROTECTED, {
  title: "PickJobStatusUnprotected",
  description:
    "The status of a pickjob. These are the status that are still allowed to be used in the deprecated status field of ModifyPickJob actions",
});

export const PickJobSubStatus = StringEnum(PICK_JOB_SUB_STATUSES, {
  title: "PickJobSubStatus",
  description: "The reason for the current status, providing type-safe context beyond the status field.",
});

export const PickJobDeliveryInformationChannel = StringEnum(DELIVERY_CHANNELS, {
  title: "PickJobDeliveryInformationChannel",
});

// --- small building blocks -----------------------------------------------------------------------

export const Sticker = Type.Object(
  {
    nameLocalized: LocaleString,
    color: opt(Type.String({ description: "optional color coding for the sticker" })),
    key: Type.String({ description: "unique identifier" }),
    name: opt(Type.String({ description: "Translated display name" })),
    priority: Type.Integer({ minimum: 1, maximum: 10000, description: "priority of the given sticker" }),
  },
  { ...closed, title: "Sticker" },
);

export const TagReference = Type.Object(
  { id: Type.String(), value: Type.String() },
  { title: "TagReference" },
);

const deliveryInformationProperties = {
  channel: opt(PickJobDeliveryInformationChannel),
  details: opt(
    Type.Object({
      collect: opt(
        Type.Object({
          identifier: opt(
            Type.String({ description: "Includes information about Click & Collect recipient" }),
          ),
          paid: opt(Type.Boolean({ default: false, description: "Indicates if the order is already paid." })),
        }),
      ),
      shipping: opt(
        Type.Object({
          carrierKey: opt(Type.String()),
          carrierProduct: opt(Type.String()),
          carrierProductCategory: opt(CarrierProductCategory),
          carrierServices: opt(Type.Array(CarrierServices)),
          identifier: opt(Type.String()),
          invoiceAddress: opt(ConsumerAddress),
          postalAddress: opt(ConsumerAddress),
          recipientaddress: opt(ConsumerAddress),
          serviceLevel: opt(StringEnum(SERVICE_LEVELS)),
        }),
      ),
    }),
  ),
  targetTime: opt(DateTime("At which time the result is expected.")),
  targetTimeBaseDate: opt(DateTime("The start date for the targetTime calculation.")),
};
export const PickjobDeliveryInformationForCreation = Type.Object(deliveryInformationProperties, {
  title: "PickjobDeliveryInformationForCreation",
});
export type PickjobDeliveryInformationForCreation = Static<typeof PickjobDeliveryInformationForCreation>;

/** Reference: allOf[PickjobDeliveryInformationForCreation, {required: [channel]}]. */
export const PickjobDeliveryInformation = Type.Object(
  { ...deliveryInformationProperties, channel: PickJobDeliveryInformationChannel },
  { title: "PickjobDeliveryInformation" },
);

export const MeasurementValidation = Type.Object(
  {
    overPickHardTolerancePercentage: opt(
      Type.Number({ minimum: 0, description: "Allowed hard over pick deviation tolerance." }),
    ),
    overPickSoftTolerancePercentage: opt(
      Type.Number({ minimum: 0, description: "Allowed soft over pick deviation tolerance." }),
    ),
    shortPickHardTolerancePercentage: opt(
      Type.Number({ minimum: 0, maximum: 100, description: "Allowed hard short pick deviation tolerance." }),
    ),
    shortPickSoftTolerancePercentage: opt(
      Type.Number({ minimum: 0, maximum: 100, description: "Allowed soft short pick deviation tolerance." }),
    ),
  },
  { title: "MeasurementValidation" },
);

export const Substitute = Type.Object(
  {
    attributes: opt(Type.Array(ArticleAttributeItem, { maxItems: ARTICLE_LIMITS.abstractArticleAttributes })),
    imageUrl: opt(Type.String()),
    measurementUnitKey: opt(UnitKey()),
    measurementValidation: opt(MeasurementValidation),
    priority: opt(
      Type.Number({
        minimum: 0,
        description: "Ranks substitutes against each other; the lowest number is the most preferable.",
      }),
    ),
    scannableCodes: opt(Type.Array(Type.String(), { maxItems: 500 })),
    secondaryMeasurementUnitKey: opt(UnitKey()),
    tenantArticleId: Type.String(),
    title: Type.String(),
  },
  { title: "Substitute" },
);

export const Location = Type.Object(
  {
    locationRef: opt(Type.String({ description: "The id of the location" })),
    scannableCodes: opt(Type.Array(Type.String())),
  },
  { title: "Location" },
);
export const PickingStockPropertyPreset = Type.Object(
  { expiry: opt(Type.String()) },
  { title: "PickingStockPropertyPreset" },
);
export const PickingStockProperty = Type.Record(Type.String(), Type.String(), {
  title: "PickingStockProperty",
});
const StockProperties = Type.Union([PickingStockPropertyPreset, PickingStockProperty]);

const partialStockLocationProperties = {
  available: opt(
    Type.Number({ minimum: 0, description: "Quantity of unreserved items at the stock location." }),
  ),
  location: opt(Location),
  quantity: opt(Type.Number({ minimum: 0 })),
  ratingScore: opt(Type.Number()),
  sequenceScore: opt(Type.Number()),
  stockProperties: opt(StockProperties),
  stockRef: Type.String(),
  tenantPartialStockId: Type.String(),
};
export const PickJobLineItemPartialStockLocationForCreation = Type.Object(partialStockLocationProperties, {
  title: "PickJobLineItemPartialStockLocationForCreation",
});
export const PickJobLineItemPartialStockLocation = Type.Object(
  {
    ...partialStockLocationProperties,
    picked: opt(Type.Number({ minimum: 0 })),
    stockEmptied: opt(Type.Boolean()),
    zoneName: opt(Type.String()),
    zoneRef: opt(Type.String()),
  },
  { title: "PickJobLineItemPartialStockLocation" },
);
export const PickJobLineItemPartialStockLocationForUpdate = Type.Object(
  {
    picked: Type.Number({ minimum: 0 }),
    stockEmptied: opt(Type.Boolean()),
    stockRef: opt(Type.String()),
    tenantPartialStockId: Type.String(),
  },
  { title: "PickJobLineItemPartialStockLocationForUpdate" },
);

export const PickLineItemScannedCode = Type.Object(
  {
    code: Type.String({ description: "scannable code i.e. barcode" }),
    quantity: Type.Integer({ minimum: 0, description: "scanned quantity" }),
  },
  { title: "PickLineItemScannedCode" },
);
/** Former name of PickLineItemScannedCode in this module. */
export const ScannedCode = PickLineItemScannedCode;

export const PickLineItemScanningRules = Type.Object(
  {
    scanningMode: opt(PickingScanningConfigurationEnum()),
    scanningType: opt(Type.Array(ScanningRuleValue)),
  },
  { ...closed, title: "PickLineItemScanningRules" },
);

export const PickLineShortPickReason = Type.Object(
  {
    reasonLocalized: LocaleString,
    reason: opt(Type.String({ description: "translated reasonLocalized according to the given locale" })),
  },
  { ...closed, title: "PickLineShortPickReason" },
);

export const SubstituteLineItemForUpsert = Type.Object(
  {
    id: opt(
      Type.String({
        description:
          "The id of the substitute line item to update. If none is passed, a new substitute line item will be created.",
      }),
    ),
    picked: opt(Type.Integer({ minimum: 0 })),
    pickedAt: opt(DateTime("Date when the line has been picked.")),
    quantity: Type.Integer({ minimum: 1 }),
    secondaryPicked: opt(Type.Integer({ minimum: 0 })),
    secondaryQuantity: opt(Type.Integer({ minimum: 1 })),
    tenantArticleId: Type.String({ description: "TenantArticleId of the substitute article" }),
  },
  { title: "SubstituteLineItemForUpsert" },
);

export const SubstituteLineItemPartialStockLocation = Type.Object(
  {
    location: Location,
    picked: opt(Type.Number({ minimum: 0 })),
    quantity: Type.Number({ minimum: 0 }),
    ratingScore: opt(Type.Number()),
    sequenceScore: opt(Type.Number()),
    stockProperties: opt(StockProperties),
    stockRef: opt(Type.String()),
    tenantPartialStockId: opt(Type.String()),
    zoneName: opt(Type.String()),
  },
  { title: "SubstituteLineItemPartialStockLocation" },
);
export const RefusedItem = Type.Object(
  {
    reasonLocalized: opt(LocaleString),
    comment: opt(Type.String()),
    quantity: Type.Integer({ minimum: 0 }),
    reason: opt(Type.String()),
  },
  { title: "RefusedItem" },
);
export const SubstituteLineItem = Type.Object(
  {
    article: SubstituteLineItemArticle,
    globalLineItemId: opt(Type.String()),
    id: Type.String(),
    measurementUnitKey: opt(UnitKey()),
    measurementValidation: opt(MeasurementValidation),
    partialStockLocations: opt(Type.Array(SubstituteLineItemPartialStockLocation)),
    picked: opt(Type.Integer({ minimum: 0 })),
    pickedAt: opt(DateTime("Date when the line has been picked.")),
    priority: opt(Type.Number({ minimum: 0 })),
    quantity: Type.Integer({ minimum: 1 }),
    refused: opt(Type.Array(RefusedItem)),
    scannableCodes: opt(Type.Array(Type.String())),
    secondaryMeasurementUnitKey: opt(UnitKey()),
    secondaryPicked: opt(Type.Integer({ minimum: 0 })),
    secondaryQuantity: opt(Type.Integer({ minimum: 1 })),
  },
  { title: "SubstituteLineItem" },
);

export const OperativeTransfer = Type.Object(
  {
    id: Type.String({ description: "The ID of the transfer" }),
    type: StringEnum(OPERATIVE_TRANSFER_TYPES, { description: "The type of the transfer" }),
  },
  { ...closed, title: "OperativeTransfer" },
);

export const WorkflowInformationAvailable = Type.Object(
  {
    instanceRef: opt(Type.String({ description: "The ID identifying the workflow instance." })),
    isAvailable: opt(
      Type.Unsafe<true>({
        type: "boolean",
        enum: [true],
        description: "Explicitly states if this entity is part of a workflow.",
      }),
    ),
    nodeRef: opt(Type.String({ description: "The ID identifying the node within the workflow instance." })),
  },
  { ...closed, title: "WorkflowInformation" },
);
export const WorkflowUnavailable = Type.Object(
  {
    isAvailable: opt(
      Type.Unsafe<false>({
        type: "boolean",
        enum: [false],
        description: "Explicitly states if this entity is part of a workflow.",
      }),
    ),
  },
  { ...closed, title: "WorkflowUnavailable" },
);
/** oneOf[WorkflowInformation, WorkflowUnavailable], as in the reference. */
export const WorkflowInformation = Type.Unsafe<
  Static<typeof WorkflowInformationAvailable> | Static<typeof WorkflowUnavailable>
>({ oneOf: [WorkflowInformationAvailable, WorkflowUnavailable] });

export const PickJobPickingTimes = Type.Object(
  { startLatestAt: opt(DateTime("The date this pickJob should be started at last.")) },
  { ...closed, title: "PickJobPickingTimes" },
);
export const DocumentHandling = Type.Object(
  { sendLabel: Type.Object({ enabled: Type.Boolean({ default: false }) }) },
  { title: "DocumentHandling" },
);
export const UserModificationHistory = Type.Object(
  {
    modificationDate: DateTime(),
    userId: opt(Type.String({ description: "ID of the user who commited this modification" })),
    username: Type.String({ description: "Username of the user who commited this modification" }),
  },
  { ...closed, title: "UserModificationHistory" },
);
export const PickingZone = Type.Object(
  { zoneRef: Type.String() },
  { title: "PickingZone", description: "Zones from which items can be picked" },
);

// --- line items ----------------------------------------------------------------------------------

const lineCustomAttributes = FreeObject(
  "Attributes that can be added to the lineItem. These attributes cannot be used within fulfillment processes.",
);

/**
 * Reference: allOf[MandatoryLineItemForCreation] + own properties, `additionalProperties: false`
 * on the outer schema. Flattened; the tighter limits of both members apply.
 */
const pickLineItemForCreationProperties = {
  allowedSubstitutes: opt(Type.Array(Substitute)),
  article: PickLineItemArticle,
  customAttributes: opt(lineCustomAttributes),
  globalLineItemId: opt(
    Type.String({
      description:
        "This id is used to identify if this line item is related to the line item of other operational entities.",
    }),
  ),
  measurementUnitKey: opt(UnitKey(1)),
  measurementValidation: opt(MeasurementValidation),
  partialStockLocations: opt(Type.Array(PickJobLineItemPartialStockLocationForCreation)),
  quantity: Type.Integer({
    minimum: 1,
    description: "Quantity of the specific article that has been ordered.",
    examples: [21],
  }),
  recordableAttributes: opt(Type.Array(RecordableAttributeForCreation, { maxItems: 50 })),
  scannableCodes: opt(
    Type.Array(Type.String(), {
      maxItems: 50,
      description: "Codes that can be used for scanning this lineItem",
    }),
  ),
  secondaryMeasurementUnitKey: opt(UnitKey(1)),
  secondaryQuantity: opt(Type.Integer({ minimum: 0 })),
  stickers: opt(Type.Array(Sticker)),
  tags: opt(Type.Array(TagReference)),
};
export const PickLineItemForCreation = Type.Object(pickLineItemForCreationProperties, {
  ...closed,
  title: "PickLineItemForCreation",
});
export type PickLineItemForCreation = Static<typeof PickLineItemForCreation>;

const expectedPickLineItemForCreationProperties = {
  allowedSubstitutes: opt(Type.Array(Substitute)),
  article: PickLineItemArticle,
  customAttributes: opt(lineCustomAttributes),
  measurementUnitKey: opt(UnitKey()),
  measurementValidation: opt(MeasurementValidation),
  partialStockLocations: opt(Type.Array(PickJobLineItemPartialStockLocationForCreation)),
  quantity: Type.Integer({
    minimum: 1,
    description: "Quantity of the specific article that has been ordered.",
  }),
  scannableCodes: opt(Type.Array(Type.String())),
  secondaryMeasurementUnitKey: opt(UnitKey()),
  secondaryQuantity: opt(Type.Integer({ minimum: 0 })),
  stickers: opt(Type.Array(Sticker)),
  transferId: Type.String(),
  tags: opt(Type.Array(TagReference)),
};
export const ExpectedPickLineItemForCreation = Type.Object(expectedPickLineItemForCreationProperties, {
  title: "ExpectedPickLineItemForCreation",
});
export type ExpectedPickLineItemForCreation = Static<typeof ExpectedPickLineItemForCreation>;

/** Reference: allOf[ExpectedPickLineItemForCreation, {id}]. */
export const ExpectedPickLineItem = Type.Object(
  { ...expectedPickLineItemForCreationProperties, id: Type.String() },
  { title: "ExpectedPickLineItem" },
);

/**
 * The read properties of a pick line (reference: allOf[MandatoryLineItem] + own properties;
 * required id, picked, status, quantity, article). Shared with PickRunLineItem.
 */
export const pickLineItemProperties = {
  allowedSubstitutes: opt(Type.Array(Substitute)),
  article: PickLineItemArticle,
  customAttributes: opt(lineCustomAttributes),
  globalLineItemId: opt(Type.String()),
  id: Type.String({ description: "The id of this lineItem, generated during creation." }),
  measurementUnitKey: opt(UnitKey(1)),
  measurementValidation: opt(MeasurementValidation),
  originId: opt(
    nullable(
      Type.String({
        description: "The id of the line item this line item originated from, before any split.",
      }),
    ),
  ),
  partialStockLocations: opt(Type.Array(PickJobLineItemPartialStockLocation)),
  picked: Type.Integer({
    minimum: 0,
    description: "The amount of articles that were picked for this pickline.",
  }),
  pickedAt: opt(DateTime("Date when the line has been picked.")),
  pickJobLineItemRef: opt(
    Type.String({ description: "used for line items in pick runs to be split up correctly again" }),
  ),
  quantity: Type.Integer({
    minimum: 1,
    description: "quantity of the specific article that has been ordered",
  }),
  recordableAttributes: opt(nullable(Type.Array(RecordableAttribute))),
  scannableCodes: opt(Type.Array(Type.String())),
  scannedCodes: opt(Type.Array(PickLineItemScannedCode)),
  scanningRule: opt(
    Type.Object(ScanningRuleConfiguration.properties, {
      title: "ScanningRuleConfiguration",
      deprecated: true,
    }),
  ),
  scanningRules: opt(PickLineItemScanningRules),
  secondaryMeasurementUnitKey: opt(UnitKey(1)),
  secondaryPicked: opt(Type.Integer({ minimum: 0 })),
  secondaryQuantity: opt(Type.Integer({ minimum: 0 })),
  shortPickReason: opt(PickLineShortPickReason),
  status: PickLineItemStatus,
  stickers: opt(Type.Array(Sticker)),
  stockEmptied: opt(Type.Boolean()),
  substituteLineItems: opt(Type.Array(SubstituteLineItem)),
  tags: opt(Type.Array(TagReference)),
};
export const PickLineItem = Type.Object(pickLineItemProperties, { title: "PickLineItem" });

// --- pick job ------------------------------------------------------------------------------------

const pickJobForCreationProperties = {
  assignedUsers: opt(Type.Array(AssignedUserForCreation, { description: "Assigned users for this entity" })),
  customAttributes: opt(
    FreeObject(
      "Attributes that can be added to the pickjob. These attributes cannot be used within fulfillment processes.",
    ),
  ),
  deliveryinformation: opt(PickjobDeliveryInformationForCreation),
  // At most 1,000 (our limit; the reference sets none: see the picking README, "Limits").
  expectedPickLineItems: opt(Type.Array(ExpectedPickLineItemForCreation, { minItems: 0, maxItems: 1000 })),
  facilityRef: Type.String({
    description: "The id of the facility reference. The given ID has to be present in the system.",
    examples: ["Esb20gpHBL94X5NdMp3C"],
  }),
  operativeProcessRef: opt(Type.String()),
  orderDate: Type.String({
    format: "date-time",
    description: "The date this order was created at the supplying system.",
    examples: ["2020-02-03T08:45:50.525Z"],
  }),
  orderRef: opt(
    Type.String({
      description: "The id of the order reference. The given ID has to be present in the system.",
      examples: ["LGMl2DuvPnfPoSHhYFOm"],
    }),
  ),
  paymentInformation: opt(PaymentInformation),
  pickingTimes: opt(PickJobPickingTimes),
  // At most 1,000 (our limit; the reference sets none: see the picking README, "Limits").
  pickLineItems: Type.Array(PickLineItemForCreation, { minItems: 0, maxItems: 1000 }),
  preferredPickingMethods: opt(
    Type.Array(PickingMethodEnum, { description: "Preferred way of picking a given pickJob." }),
  ),
  processId: opt(Type.String({ description: "Id of the global process related to this entity." })),
  routingPlanRef: opt(
    Type.String({ description: "Reference to the routingplan which created this pickjob" }),
  ),
  shortId: opt(
    Type.String({
      description: "A short identifier that helps assigning a pick job to a customer.",
      examples: ["AS12"],
    }),
  ),
  status: opt(PickJobStatus),
  stickers: opt(Type.Array(Sticker, { minItems: 0 })),
  tenantOrderId: opt(
    Type.String({
      description: "Reference number in foreign systems, e.g. the source system's identifier for this order.",
      examples: ["R456728546"],
    }),
  ),
  transfers: opt(Type.Array(OperativeTransfer, { minItems: 0 })),
  workflowInformation: opt(WorkflowInformation),
  tags: opt(
    Type.Array(TagReference, {
      minItems: 1,
      description: "Tags can only be set when there is no process related with this pickJob.",
    }),
  ),
};
export const PickJobForCreation = Type.Object(pickJobForCreationProperties, {
  ...closed,
  title: "PickJobForCreation",
});
export type PickJobForCreation = Static<typeof PickJobForCreation>;

const versionedResourceProperties = {
  created: opt(DateTime("The date this entity was created at the platform.")),
  lastModified: opt(DateTime("The date this entity was modified last.")),
  version: Type.Integer({
    description: "The version of the document to be used in optimistic locking mechanisms.",
  }),
};

/** Reference: allOf[PickJobForCreation, VersionedResource, {read-only properties}]; left open. */
export const PickJob = Type.Object(
  {
    ...pickJobForCreationProperties,
    ...versionedResourceProperties,
    anonymized: opt(Type.Boolean({ description: "Indicates if gdpr related data was anonymized" })),
    assignedUsers: opt(Type.Array(AssignedUser, { description: "Assigned users for this entity" })),
    deliveryinformation: PickjobDeliveryInformation,
    documentHandling: opt(DocumentHandling),
    documentsRef: Type.String({ description: "Reference to the documents collection from this entity" }),
    editor: opt(Editor),
    expectedPickLineItems: opt(Type.Array(ExpectedPickLineItem)),
    id: Type.String({ description: "The id of this pickjob, generated during creation." }),
    pickingZones: opt(Type.Array(PickingZone)),
    pickLineItems: Type.Array(PickLineItem),
    pickRunRef: opt(Type.String({ description: "Pick run id to which the pick job belongs" })),
    resetBlocked: opt(
      Type.Boolean({
        default: false,
        description: "Indicates if pickJob can still be resetted or restarted",
      }),
    ),
    shortId: Type.String({ description: "A short identifier that helps assigning a pickJob to a customer." }),
    status: PickJobStatus,
    statusReason: opt(
      Type.String({
        deprecated: true,
        description: "deprecated: Use subStatus instead. Maintained for backward compatibility.",
      }),
    ),
    subStatus: opt(PickJobSubStatus),
    usersModificationHistory: opt(Type.Array(UserModificationHistory)),
    workflowInformation: WorkflowInformation,
    tags: opt(Type.Array(TagReference, { minItems: 1 })),
  },
  { title: "PickJob" },
);
export type PickJob = Static<typeof PickJob>;

export const StrippedPickJob = Type.Object(
  {
    created: DateTime("The date this entity was created at the platform."),
    lastModified: DateTime("The date this entity was modified last."),
    version: Type.Integer({
      description: "The version of the document to be used in optimistic locking mechanisms.",
    }),
    carrierKey: opt(Type.String({ examples: ["DPD"] })),
    facilityRef: opt(Type.String()),
    id: Type.String(),
    orderRef: opt(Type.String()),
    searchPaths: opt(Type.Array(Type.String(), { minItems: 0 })),
    status: PickJobStatus,
    targetTime: opt(DateTime("At which time the result is expected.")),
  },
  { title: "StrippedPickJob" },
);
export const StrippedPickJobs = Type.Object(
  {
    pickjobs: opt(Type.Array(StrippedPickJob)),
    total: opt(Type.Integer({ description: "Total number of found entities for this query" })),
  },
  { title: "StrippedPickJobs" },
);

// --- GET /api/pickjobs ---------------------------------------------------------------------------

/** GET /api/pickjobs: its filters (declared in the contracts) and the page parameters. */
export const PickJobListQuery = listQuery(PickJobListFilters);

// --- POST /api/pickjobs/{id}/actions -------------------------------------------------------------

const lineUpdateProperties = {
  customAttributes: opt(nullable(FreeObject("Attributes that can be added to the pick line item."))),
  id: Type.String({ description: "The id of this lineItem." }),
  partialStockLocations: opt(Type.Array(PickJobLineItemPartialStockLocationForUpdate, { maxItems: 50 })),
  picked: opt(
    Type.Integer({ minimum: 0, description: "The amount of articles that were picked for this pickline." }),
  ),
  pickedAt: opt(DateTime("Date when the line has been picked.")),
  scannedCodes: opt(Type.Array(PickLineItemScannedCode, { minItems: 0, maxItems: 50 })),
  secondaryPicked: opt(Type.Integer()),
  shortPickReason: opt(Type.Object({ reasonLocalized: opt(LocaleString) })),
  stickers: opt(Type.Array(Sticker, { maxItems: 50 })),
  stockEmptied: opt(Type.Boolean()),
  substituteLineItems: opt(Type.Array(SubstituteLineItemForUpsert, { maxItems: 50 })),
};
export const PickPickJobPickLineItemUpdate = Type.Object(lineUpdateProperties, {
  ...closed,
  title: "PickPickJobPickLineItemUpdate",
});
export const PickLineItemUpdate = Type.Object(
  { ...lineUpdateProperties, status: opt(PickLineItemStatus) },
  { ...closed, title: "PickLineItemUpdate" },
);
export const PickJobSplitLineItemsInfo = Type.Object(
  {
    lineItemId: Type.String({ description: "references the id of the pickLineItem of a pickJob" }),
    picked: Type.Integer({ minimum: 0 }),
    quantity: Type.Integer({ minimum: 1 }),
  },
  { ...closed, title: "PickJobSplitLineItemsInfo" },
);

export const PickJobAbortActionParameter = actionParameter("ABORT", {
  title: "PickJobAbortActionParameter",
  description: "Action to Abort a Pickjob.",
});
export const PickJobRestartActionParameter = actionParameter("RESTART", {
  title: "PickJobRestartActionParameter",
  description: "Action to Restart a Pickjob.",
});
export const PickJobResetActionParameter = actionParameter("RESET", {
  title: "PickJobResetActionParameter",
  description: "Action to reset a Pickjob.",
});
export const PickJobObsoleteActionParameter = actionParameter("OBSOLETE", {
  title: "PickJobObsoleteActionParameter",
  description: "Action to set the status to Obsolete of a Pickjob.",
});
export const PickJobReplaceAssignedUsersActionParameter = actionParameter("REPLACE_ASSIGNED_USERS", {
  title: "PickJobReplaceAssignedUsersActionParameter",
  description: "Action to replace the assigned users.",
  extra: {
    assignedUsers: Type.Array(AssignedUserForCreation, { description: "Assigned users for this entity" }),
  },
});
export const PickJobPauseActionParameter = actionParameter("PAUSE", {
  title: "PickJobPauseActionParameter",
  description: "Action to pause a Pickjob.",
});
export const PickJobStartActionParameter = actionParameter("START", {
  title: "PickJobStartActionParameter",
  description: "Action to start a PickJob by setting it and its line items to IN_PROGRESS.",
});
export const PickJobSplitLineItemsActionParameter = actionParameter("SPLIT_LINE_ITEMS_PICK_JOB", {
  title: "PickJobSplitLineItemsActionParameter",
  description: "Action to split pick line items.",
  extra: { splitLineItemsInfo: Type.Array(PickJobSplitLineItemsInfo) },
  version: LooseVersion,
});
export const PickJobMergeLineItemsActionParameter = actionParameter("MERGE_LINE_ITEMS_PICK_JOB", {
  title: "PickJobMergeLineItemsActionParameter",
  description: "Action to merge pick line items.",
  extra: {
    lineItemIds: Type.Array(Type.String(), { description: "Ids of the line items that should be merged" }),
  },
  version: LooseVersion,
});
export const UpdatePickLineItemRecordableAttributesActionParameter = actionParameter(
  "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES",
  {
    title: "UpdatePickLineItemRecordableAttributesActionParameter",
    description: "Action to update recordable attributes of pick line items.",
    extra: { recordableAttributeUpdates: Type.Array(RecordableAttributeForUpdate) },
    version: LooseVersion,
  },
);
export const PickJobPickedActionParameter = actionParameter("PICK", {
  title: "PickJobPickedActionParameter",
  description: "Action to set the status to Picked of a Pickjob.",
  extra: {
    lineItems: Type.Array(PickPickJobPickLineItemUpdate, {
      minItems: 1,
      maxItems: 100,
      description: "Pick line items that should be updated",
    }),
  },
});
export const ModifyPickLineItemsActionParameter = actionParameter("MODIFY_PICK_JOB_LINE_ITEMS", {
  title: "ModifyPickLineItemsActionParameter",
  enumTitle: "ModifyPickJobLineItemsActionEnum",
  description: "Action to modify picklineItems of a Pickjob.",
  extra: { pickJobLineItemUpdates: Type.Array(PickLineItemUpdate, { minItems: 1 }) },
});
export const PickJobAddTargetTimeActionParameter = actionParameter("ADD_TARGET_TIME", {
  title: "PickJobAddTargetTimeActionParameter",
  description: "Action to add targetTime to a PickJob that has none. Will fail if targetTime is already set",
  extra: { targetTime: DateTime("The target time you want set for the given pickJob.") },
});
export const PickJobCancelActionParameter = actionParameter("CANCEL", {
  title: "PickJobCancelActionParameter",
  description: "Action to cancel a Pickjob.",
});
export const PickJobCloseActionParameter = actionParameter("CLOSE", {
  title: "PickJobCloseActionParameter",
  description: "Action to close a PickJob.",
});

const pickJobActionSchemas = {
  ABORT: PickJobAbortActionParameter,
  RESTART: PickJobRestartActionParameter,
  RESET: PickJobResetActionParameter,
  OBSOLETE: PickJobObsoleteActionParameter,
  REPLACE_ASSIGNED_USERS: PickJobReplaceAssignedUsersActionParameter,
  PAUSE: PickJobPauseActionParameter,
  START: PickJobStartActionParameter,
  SPLIT_LINE_ITEMS_PICK_JOB: PickJobSplitLineItemsActionParameter,
  MERGE_LINE_ITEMS_PICK_JOB: PickJobMergeLineItemsActionParameter,
  UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES: UpdatePickLineItemRecordableAttributesActionParameter,
  PICK: PickJobPickedActionParameter,
  MODIFY_PICK_JOB_LINE_ITEMS: ModifyPickLineItemsActionParameter,
  ADD_TARGET_TIME: PickJobAddTargetTimeActionParameter,
  CANCEL: PickJobCancelActionParameter,
  CLOSE: PickJobCloseActionParameter,
};
export type PickJobActionName = keyof typeof pickJobActionSchemas;
export const PICK_JOB_ACTION_NAMES = Object.keys(pickJobActionSchemas) as PickJobActionName[];
/** Each action's own schema, by `name` (the route takes their OneOf, PickJobActionsParameter). */
export const PICK_JOB_ACTION_SCHEMAS: Readonly<Record<PickJobActionName, TSchema>> &
  Readonly<Partial<Record<string, TSchema>>> = pickJobActionSchemas;

/** The body of POST /api/pickjobs/{pickJobId}/actions: one of the 15 action parameters. */
export type PickJobActionsParameter = {
  [N in PickJobActionName]: Static<(typeof pickJobActionSchemas)[N]>;
}[PickJobActionName];

/** The body of POST /api/pickjobs/{pickJobId}/actions: one of the 15 action parameters, by `name`. */
export const PickJobActionsParameter = OneOf("name", Object.values(pickJobActionSchemas), {
  title: "PickJobActionsParameter",
});

// --- PATCH /api/pickjobs/{id} (deprecated) -------------------------------------------------------

export const ModifyPickLineItem = patchAction(
  "ModifyPickLineItem",
  "Action to modify a picklineitem of a PickJob.",
  {
    shortPickReasonLocalized: opt(LocaleString),
    customAttributes: opt(FreeObject("Attributes that can be added to the pick line item.")),
    id: Type.String({ description: "The id of this lineItem." }),
    partialStockLocations: opt(Type.Array(PickJobLineItemPartialStockLocationForUpdate)),
    picked: opt(Type.Integer({ minimum: 0 })),
    pickedAt: opt(DateTime("Date when the line has been picked.")),
    scannedCodes: opt(Type.Array(PickLineItemScannedCode, { minItems: 0 })),
    secondaryPicked: opt(Type.Integer()),
    status: opt(PickLineItemStatus),
    stickers: opt(Type.Array(Sticker)),
    stockEmptied: opt(Type.Boolean()),
    substituteLineItems: opt(Type.Array(SubstituteLineItemForUpsert)),
  },
);
export const ModifyPickJob = patchAction("ModifyPickJob", "Action to modify a PickJob.", {
  customAttributes: opt(FreeObject("Attributes that can be added to the pickJob.")),
  paymentInformation: opt(PaymentInformation),
  preferredPickingMethods: opt(Type.Array(PickingMethodEnum)),
  status: opt(PickJobStatusUnprotected),
});
export const ModifyPickJobLastEditor = patchAction(
  "ModifyPickJobLastEditor",
  "Action to modify the last editor of a PickJob.",
);
export const RestartPickJob = patchAction("RestartPickJob", "Deprecated: restart the pick job.", {}, true);
export const ResetPickJob = patchAction("ResetPickJob", "Deprecated: reset the pick job.", {}, true);
export const AbortPickJob = patchAction("AbortPickJob", "Deprecated: abort the pick job.", {}, true);

const pickingPatchActionSchemas = {
  ModifyPickLineItem,
  ModifyPickJob,
  ModifyPickJobLastEditor,
  RestartPickJob,
  ResetPickJob,
  AbortPickJob,
};
export type PickingPatchActionName = keyof typeof pickingPatchActionSchemas;
export const PICKING_PATCH_ACTION_NAMES = Object.keys(pickingPatchActionSchemas) as PickingPatchActionName[];
/** Each deprecated PATCH action's own schema, by `action`. */
export const PICKING_PATCH_ACTION_SCHEMAS: Readonly<Record<PickingPatchActionName, TSchema>> &
  Readonly<Partial<Record<string, TSchema>>> = pickingPatchActionSchemas;

export type PickingPatchAction = {
  [N in PickingPatchActionName]: Static<(typeof pickingPatchActionSchemas)[N]>;
}[PickingPatchActionName];
/** The body of the deprecated PATCH /api/pickjobs/{pickJobId}. */
export type PickingPatchActions = { version: number; actions: PickingPatchAction[] };

/** The body of the deprecated PATCH /api/pickjobs/{pickJobId}: actions, each by `action`. */
export const PickingPatchActions = Type.Object(
  {
    actions: Type.Array(OneOf("action", Object.values(pickingPatchActionSchemas)), { minItems: 1 }),
    version: LooseVersion,
  },
  { title: "PickingPatchActions", deprecated: true },
);

// --- POST /api/pickjobs/search -------------------------------------------------------------------

const enumFilter = (title: string, values: readonly string[]) =>
  Type.Object(Filters.EnumFilter(values).properties, { ...closed, title });

export const PickJobStatusEnumFilter = enumFilter("PickJobStatusEnumFilter", PICK_JOB_STATUSES);
export const PickJobPickingMethodEnumEnumFilter = enumFilter(
  "PickJobPickingMethodEnumEnumFilter",
  PICKING_METHODS,
);
export const PickJobPickingMethodEnumEnumListFilter = Type.Object(
  { contains: opt(PickJobPickingMethodEnumEnumFilter) },
  { ...closed, title: "PickJobPickingMethodEnumEnumListFilter" },
);
export const StringListFilter = Type.Object(
  { contains: opt(Filters.StringEqFilter) },
  { ...closed, title: "StringListFilter" },
);
export const PickJobTransfersFilter = Type.Object(
  { id: opt(Filters.StringEqFilter) },
  { ...closed, title: "PickJobTransfersFilter" },
);
export const PickJobTransfersListFilter = Type.Object(
  {
    contains: opt(PickJobTransfersFilter),
    exists: opt(
      Type.Boolean({
        description: "exists:false matches empty or absent lists; exists:true matches non-empty lists",
      }),
    ),
  },
  { ...closed, title: "PickJobTransfersListFilter" },
);

export const PickJobSearchQuery = SearchQuery("PickJobSearchQuery", {
  consumerName: Filters.StringSearchFilter,
  created: Filters.DateFilter,
  facilityRef: Filters.StringEqFilter,
  id: Filters.StringFilter,
  lastModified: Filters.DateFilter,
  orderRef: Filters.StringEqFilter,
  preferredPickingMethods: PickJobPickingMethodEnumEnumListFilter,
  status: PickJobStatusEnumFilter,
  targetTime: Filters.DateFilter,
  tenantArticleIds: StringListFilter,
  tenantOrderId: Filters.StringFilter,
  transfers: PickJobTransfersListFilter,
});
export const PickJobSort = SortEntry("PickJobSort", [
  "created",
  "lastModified",
  "targetTime",
  "tenantOrderId",
]);
export const PickJobSearchPayload = SearchPayload("PickJobSearchPayload", PickJobSearchQuery, PickJobSort);
export const PickJobPaginatedResult = Type.Object(
  {
    pageInfo: PageInfo,
    pickJobs: Type.Array(PickJob),
    total: opt(Type.Integer({ minimum: 0, description: "Only filled if options.withTotal is true." })),
  },
  { title: "PickJobPaginatedResult" },
);

// --- other endpoints -----------------------------------------------------------------------------

export const ResolvedSubstitutes = Type.Object(
  { substitutes: Type.Array(Substitute), tenantArticleId: Type.String() },
  { title: "ResolvedSubstitutes" },
);

const PickJobId = Type.String({ minLength: 1, maxLength: 256, description: "ID of the pick job" });
export const PickJobIdParams = Type.Object({ pickJobId: PickJobId });
export const DeliveryNoteQuery = Type.Object({
  locale: opt(
    Type.String({
      pattern: "^[a-z]{2}([_-][A-Za-z]{2})?$",
      description:
        "Provide the localized values for the delivery note. If not provided the default locale is used. For example de_DE",
    }),
  ),
});
export const PickLineItemParams = Type.Object({
  pickJobId: PickJobId,
  pickLineItemId: Type.String({ minLength: 1, maxLength: 256, description: "ID of the pick line item" }),
});

/** The body of POST /api/pickjobs/{pickJobId}/loadunits (one load unit of that job). */
export const PickingLoadUnitForCreation = Type.Object(
  {
    codes: Type.Array(Type.String(), { minItems: 1, maxItems: 100, description: "List of codes" }),
    customAttributes: opt(CustomAttributes),
    loadUnitLineItems: opt(Type.Array(LoadUnitLineItemForCreation, { maxItems: 100 })),
    loadUnitTypeRef: opt(
      Type.String({ deprecated: true, description: "Use operativeContainerTypeRef instead." }),
    ),
    operativeContainerTypeRef: opt(
      Type.String({ description: "the reference to the operativeContainerType" }),
    ),
    stackRef: opt(Type.String({ description: "the reference to the stackRef this loadUnit is part of" })),
    storageLocationRef: opt(
      Type.String({
        description: "the reference to the storage location this load unit as been placed into",
      }),
    ),
  },
  { title: "PickingLoadUnitForCreation" },
);
export type PickingLoadUnitForCreation = Static<typeof PickingLoadUnitForCreation>;
