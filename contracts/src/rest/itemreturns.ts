/**
 * Item return job schemas, matching the reference (ItemReturnJob, ItemReturnJobForCreation,
 * ItemReturnJobLineItem(ForCreation), the job actions, ItemReturnJobs).
 */

import { type TSchema, Type } from "@sinclair/typebox";
import {
  ITEM_RETURN_JOB_STATUSES,
  ITEM_RETURN_STATUSES,
  ItemReturnJobListFilters,
  ItemReturnListFilters,
  REFUND_STATUSES,
  RETURNED_LINE_ITEM_STATUSES,
} from "../returns.ts";
import { ConsumerAddress } from "./address.ts";
import { ItemReturnJobLineItemArticle } from "./article.ts";
import {
  CustomAttributes,
  DateTime,
  LocaleString,
  listQuery,
  OneOf,
  opt,
  RequestVersion,
  StringEnum,
} from "./common.ts";
import { CurrencyCode } from "./currency.ts";
import { RecordableAttribute, RecordableAttributeForCreation } from "./recordable-attribute.ts";

const Strings = (maxItems: number, description?: string) =>
  Type.Array(Type.String({ maxLength: 256 }), { maxItems, description });

const JobStatus = StringEnum(ITEM_RETURN_JOB_STATUSES);

const lineFields = {
  article: ItemReturnJobLineItemArticle,
  customAttributes: opt(CustomAttributes),
  globalLineItemId: opt(Type.String()),
  notReturnableItemsExists: opt(Type.Boolean({ deprecated: true })),
  scannableCodes: opt(Strings(50, "Codes that can be used for scanning this line item")),
  serviceJobRefs: opt(Strings(100)),
};

export const ItemReturnJobLineItemForCreation = Type.Object(
  {
    ...lineFields,
    delivered: Type.Integer({ minimum: 1, maximum: 1_000_000, description: "Quantity delivered" }),
    recordableAttributes: opt(
      Type.Union([Type.Array(RecordableAttributeForCreation, { maxItems: 50 }), Type.Null()]),
    ),
  },
  { title: "ItemReturnJobLineItemForCreation" },
);

const ItemReturnJobLineItem = Type.Object(
  {
    ...lineFields,
    id: Type.String(),
    delivered: Type.Number(),
    returnable: Type.Number({ minimum: 0 }),
    returned: Type.Number({ minimum: 0 }),
    recordableAttributes: opt(Type.Union([Type.Array(RecordableAttribute), Type.Null()])),
  },
  { title: "ItemReturnJobLineItem" },
);

const Lines = <T extends TSchema>(item: T, max: number) => Type.Array(item, { minItems: 0, maxItems: max });

export const ItemReturnJobForCreation = Type.Object(
  {
    originFacilityRefs: Strings(50),
    status: JobStatus,
    consumerAddresses: Type.Array(ConsumerAddress, { minItems: 1, maxItems: 5 }),
    returnableLineItems: Lines(ItemReturnJobLineItemForCreation, 100),
    notReturnableLineItems: opt(Lines(ItemReturnJobLineItemForCreation, 100)),
    customAttributes: opt(CustomAttributes),
    processRef: opt(Type.String({ maxLength: 256 })),
    scannableCodes: opt(Strings(50)),
    shortId: opt(Type.String({ maxLength: 64, description: "Generated when not given." })),
    tenantOrderId: opt(Type.String({ maxLength: 256 })),
  },
  { title: "ItemReturnJobForCreation" },
);

export const ItemReturnJob = Type.Object(
  {
    id: Type.String(),
    version: Type.Integer(),
    processRef: Type.String(),
    status: JobStatus,
    originFacilityRefs: Strings(50),
    consumerAddresses: Type.Array(ConsumerAddress),
    returnableLineItems: Lines(ItemReturnJobLineItem, 100),
    notReturnableLineItems: opt(Lines(ItemReturnJobLineItem, 100)),
    itemReturns: Type.Array(
      Type.Object({}, { additionalProperties: true, description: "An ItemReturn of the job, as stored" }),
      { maxItems: 100 },
    ),
    anonymized: opt(Type.Boolean()),
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
    customAttributes: opt(CustomAttributes),
    scannableCodes: opt(Strings(50)),
    shortId: opt(Type.String()),
    tenantOrderId: opt(Type.String()),
  },
  { title: "ItemReturnJob" },
);

export const ItemReturnJobs = Type.Object(
  {
    itemReturnJobsWithSearchPaths: Type.Array(ItemReturnJob, { maxItems: 500 }),
    total: Type.Number({ description: "Total number of found entities for this query" }),
  },
  { title: "ItemReturnJobs" },
);

const ActionVersion = RequestVersion({ minimum: 0, description: "Version of the entity to be changed" });
const statusAction = (name: string) =>
  Type.Object({ name: Type.Literal(name), version: ActionVersion }, { title: `${name}ActionParameter` });
const LineItemIds = Type.Array(Type.String({ maxLength: 256 }), { minItems: 1, maxItems: 20 });

export const ItemReturnJobActionsParameter = OneOf(
  "name",
  [
    statusAction("FinishItemReturnJob"),
    statusAction("StartItemReturnJob"),
    statusAction("RestartItemReturnJob"),
    Type.Object(
      {
        name: Type.Literal("CHANGE_LINE_ITEMS_TO_NOT_RETURNABLE_IN_ITEM_RETURN_JOB"),
        version: ActionVersion,
        lineItemIds: LineItemIds,
      },
      { title: "ChangeLineItemsToNotReturnableInItemReturnJobActionParameter" },
    ),
    Type.Object(
      {
        name: Type.Literal("CHANGE_LINE_ITEMS_TO_RETURNABLE_IN_ITEM_RETURN_JOB"),
        version: ActionVersion,
        lineItemIds: LineItemIds,
      },
      { title: "ChangeLineItemsToReturnableInItemReturnJobActionParameter" },
    ),
    Type.Object(
      {
        name: Type.Literal("REPLACE_LINE_ITEMS_ON_ITEM_RETURN_JOB"),
        version: ActionVersion,
        returnableLineItems: opt(Lines(ItemReturnJobLineItemForCreation, 20)),
        notReturnableLineItems: opt(Lines(ItemReturnJobLineItemForCreation, 20)),
      },
      { title: "ReplaceLineItemsOnItemReturnJobActionParameter" },
    ),
  ],
  { title: "ItemReturnJobActionsParameter" },
);

/** GET /api/itemreturnjobs: its filters (declared in the contracts) and the page parameters. */
export const ItemReturnJobListQuery = listQuery(ItemReturnJobListFilters);

export const ItemReturnJobIdParams = Type.Object({ itemReturnJobId: Type.String({ maxLength: 256 }) });

// --- item returns --------------------------------------------------------------------------------

const LineStatus = StringEnum(RETURNED_LINE_ITEM_STATUSES);

const ItemReturnLineItemReasonForUpsert = Type.Object(
  { reasonLocalized: LocaleString, comment: opt(Type.String({ minLength: 1, maxLength: 4096 })) },
  { title: "ItemReturnLineItemReasonForUpsert" },
);
const ItemReturnLineItemReason = Type.Object(
  {
    reasonLocalized: LocaleString,
    comment: opt(Type.String({ minLength: 1, maxLength: 4096 })),
    reason: opt(Type.String()),
  },
  { title: "ItemReturnLineItemReason" },
);

export const ItemReturnLineItemForCreation = Type.Object(
  {
    itemReturnJobLineItemRef: Type.String({
      maxLength: 256,
      description: "id of the item return job line item that is returned",
    }),
    status: LineStatus,
    itemConditionLocalized: opt(LocaleString),
    customAttributes: opt(CustomAttributes),
    decisionReason: opt(ItemReturnLineItemReasonForUpsert),
    itemConditionComment: opt(Type.String({ minLength: 1, maxLength: 4096 })),
    reasons: opt(Type.Array(ItemReturnLineItemReason, { maxItems: 20 })),
    recordableAttributes: opt(
      Type.Union([Type.Array(RecordableAttributeForCreation, { maxItems: 50 }), Type.Null()]),
    ),
    scannedCodes: opt(Strings(50)),
    tenantArticleId: opt(Type.String({ maxLength: 256 })),
  },
  { title: "ItemReturnLineItemForCreation" },
);

export const AddItemReturnToItemReturnJob = Type.Object(
  {
    itemReturnJobVersion: RequestVersion({
      minimum: 0,
      description: "Version of the itemReturnJob the itemReturn gets added to",
    }),
    itemReturnForCreation: Type.Object(
      {
        status: StringEnum(ITEM_RETURN_STATUSES),
        returnFacilityRef: Type.String({ maxLength: 256 }),
        returnedLineItems: Type.Array(ItemReturnLineItemForCreation, { minItems: 0, maxItems: 100 }),
        returnedNotReturnableLineItems: opt(
          Type.Array(ItemReturnLineItemForCreation, { minItems: 0, maxItems: 100 }),
        ),
        scannableCodes: opt(Strings(50)),
        tenantOrderId: opt(Type.String({ deprecated: true, description: "deprecated: taken from the job" })),
        customAttributes: opt(CustomAttributes),
      },
      { title: "ItemReturnForCreation" },
    ),
  },
  { title: "AddItemReturnToItemReturnJob" },
);

/** A returned line as the service answers it (the reference's fields; kept open). */
const returnedLineFields = {
  id: Type.String(),
  itemReturnJobLineItemRefs: Type.Array(Type.String()),
  tenantArticleId: Type.String(),
  status: LineStatus,
  itemCondition: opt(Type.String()),
  itemConditionLocalized: opt(LocaleString),
  itemConditionComment: opt(Type.String()),
  customAttributes: opt(CustomAttributes),
  scannedCodes: opt(Type.Array(Type.String())),
  reasons: opt(Type.Array(ItemReturnLineItemReason)),
  decisionReason: opt(ItemReturnLineItemReason),
  recordableAttributes: opt(
    Type.Union([Type.Array(Type.Object({}, { additionalProperties: true })), Type.Null()]),
  ),
};

export const ItemReturn = Type.Object(
  {
    id: Type.String(),
    status: StringEnum(ITEM_RETURN_STATUSES),
    returnFacilityRef: Type.String(),
    returnedLineItems: Type.Array(
      Type.Object(
        {
          ...returnedLineFields,
          refund: opt(Type.Object({}, { additionalProperties: true, description: "The line's refund" })),
        },
        { additionalProperties: true, title: "ItemReturnLineItem" },
      ),
    ),
    returnedNotReturnableLineItems: opt(
      Type.Array(
        Type.Object(returnedLineFields, {
          additionalProperties: true,
          title: "ItemReturnNotReturnableLineItem",
        }),
      ),
    ),
    customAttributes: opt(CustomAttributes),
    parcelRefs: opt(Type.Array(Type.String())),
    scannableCodes: opt(Type.Array(Type.String())),
    tenantOrderId: opt(Type.String({ deprecated: true })),
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
  },
  { title: "ItemReturn", additionalProperties: true },
);

const itemReturnAction = (name: string) =>
  Type.Object(
    { name: Type.Literal(name), itemReturnJobVersion: RequestVersion({ minimum: 0 }) },
    { title: `${name}ActionParameter` },
  );
export const ItemReturnActionsParameter = OneOf(
  "name",
  [
    "AnnounceItemReturn",
    "OpenItemReturn",
    "StartItemReturn",
    "PauseItemReturn",
    "FinishItemReturn",
    "CancelItemReturn",
    "WaitForInputItemReturn",
  ].map(itemReturnAction),
  { title: "ItemReturnActionsParameter" },
);

const RefundPrice = Type.Object(
  {
    value: Type.Number({ minimum: 0, description: "0.0 till line item price that should be refunded" }),
    currency: CurrencyCode,
  },
  { additionalProperties: false, title: "ReturnedLineItemRefundPrice" },
);
const Refund = Type.Object(
  {
    status: StringEnum(REFUND_STATUSES),
    percent: opt(Type.Number({ minimum: 0, maximum: 100 })),
    price: opt(RefundPrice),
  },
  { title: "ReturnedLineItemRefund", description: "Either price or percent must be set, not both." },
);

export const ItemReturnLineItemForUpdate = Type.Object(
  {
    itemReturnJobVersion: RequestVersion({ description: "version of the overlaying itemReturnJob" }),
    status: opt(LineStatus),
    decisionReason: opt(ItemReturnLineItemReasonForUpsert),
    refund: opt(Refund),
  },
  { title: "ItemReturnLineItemForUpdate" },
);
export const ItemReturnNotReturnableLineItemForUpdate = Type.Object(
  {
    itemReturnJobVersion: RequestVersion({ description: "version of the overlaying itemReturnJob" }),
    status: opt(LineStatus),
    decisionReason: opt(ItemReturnLineItemReasonForUpsert),
  },
  { title: "ItemReturnNotReturnableLineItemForUpdate" },
);

export const ItemReturnParams = Type.Object({
  itemReturnJobId: Type.String({ maxLength: 256 }),
  itemReturnId: Type.String({ maxLength: 256 }),
});
export const ReturnedLineParams = Type.Object({
  itemReturnJobId: Type.String({ maxLength: 256 }),
  itemReturnId: Type.String({ maxLength: 256 }),
  returnedLineItemId: Type.String({ maxLength: 256 }),
});
export const NotReturnableLineParams = Type.Object({
  itemReturnJobId: Type.String({ maxLength: 256 }),
  itemReturnId: Type.String({ maxLength: 256 }),
  returnedNotReturnableLineItemId: Type.String({ maxLength: 256 }),
});

export const ReplaceReturnedLineItems = Type.Object(
  {
    itemReturnJobVersion: RequestVersion({ minimum: 0, description: "Version of the entity to be changed" }),
    returnedLineItems: Type.Array(ItemReturnLineItemForCreation, { minItems: 1, maxItems: 100 }),
  },
  { title: "ReplaceReturnedLineItems" },
);
export const ReplaceReturnedNotReturnableLineItems = Type.Object(
  {
    itemReturnJobVersion: RequestVersion({ minimum: 0, description: "Version of the entity to be changed" }),
    returnedNotReturnableLineItems: Type.Array(ItemReturnLineItemForCreation, { minItems: 1, maxItems: 100 }),
  },
  { title: "ReplaceReturnedNotReturnableLineItems" },
);
export const DeleteItemReturnQuery = Type.Object({
  itemReturnJobVersion: RequestVersion({ minimum: 0, description: "Version of the item return job" }),
});

/** GET /api/itemreturns: its filters (declared in the contracts) and the page parameters. */
export const ItemReturnsQuery = listQuery(ItemReturnListFilters);

export const ItemReturns = Type.Object(
  {
    itemReturns: Type.Array(
      Type.Object({}, { additionalProperties: true, title: "ItemReturnsWithSearchPaths" }),
      {
        maxItems: 500,
      },
    ),
    totalCount: Type.Number({ description: "Total number of found entities for this query" }),
  },
  { title: "ItemReturns" },
);

// --- return configuration ------------------------------------------------------------------------

const DecisionReasonContext = Type.Object(
  {
    type: opt(Type.Literal("ITEM_RETURN_LINE_ITEM_STATUS")),
    values: opt(
      Type.Array(StringEnum(["ACCEPTED", "REJECTED", "WAITING_FOR_INPUT"]), { minItems: 1, maxItems: 10 }),
    ),
  },
  { title: "DecisionReasonContext" },
);
const returnConfigFields = {
  active: Type.Boolean({
    deprecated: true,
    description: "Enable or disable legacy returns. Use returnTypeConfiguration instead",
  }),
  allowTriggerRefund: opt(Type.Boolean({ description: "Default: false" })),
  returnTypeConfiguration: opt(
    Type.Object({ type: StringEnum(["RETURN", "ITEM_RETURN"]) }, { title: "ReturnTypeConfiguration" }),
  ),
  created: opt(DateTime()),
  lastModified: opt(DateTime()),
};

export const ReturnConfiguration = Type.Object(
  {
    ...returnConfigFields,
    version: RequestVersion({ description: "The current version (not checked when none exists yet)." }),
    availableReturnReasons: opt(
      Type.Array(
        Type.Object(
          {
            reasonLocalized: LocaleString,
            identifier: opt(
              Type.String({
                pattern: "^([1-9][0-9]?|[A-Z])$",
                description: "1-99 or A-Z, unique; assigned when not given",
              }),
            ),
          },
          { title: "AvailableReturnReason" },
        ),
        { maxItems: 125 },
      ),
    ),
    availableDecisionReasons: opt(
      Type.Array(
        Type.Object(
          {
            reasonLocalized: LocaleString,
            context: opt(Type.Array(DecisionReasonContext, { minItems: 1, maxItems: 10 })),
            reason: opt(Type.String()),
          },
          { title: "AvailableDecisionReasons" },
        ),
        { maxItems: 100 },
      ),
    ),
    availableItemConditions: opt(
      Type.Array(Type.Object({ conditionLocalized: LocaleString }, { title: "AvailableItemCondition" }), {
        maxItems: 100,
      }),
    ),
  },
  { title: "ReturnConfiguration" },
);

export const LocalizedReturnConfiguration = Type.Object(
  {
    ...returnConfigFields,
    version: Type.Integer(),
    availableReturnReasons: opt(
      Type.Array(
        Type.Object({ reasonLocalized: LocaleString, identifier: Type.String(), reason: Type.String() }),
      ),
    ),
    availableDecisionReasons: opt(
      Type.Array(
        Type.Object({ reasonLocalized: LocaleString, reason: Type.String() }, { additionalProperties: true }),
      ),
    ),
    availableItemConditions: opt(
      Type.Array(Type.Object({ conditionLocalized: LocaleString, condition: Type.String() })),
    ),
  },
  { title: "LocalizedReturnConfiguration" },
);
