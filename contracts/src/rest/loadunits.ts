/**
 * Load unit, stack, operative container type and load unit type schemas, matching the reference
 * (LoadUnit, LoadUnitsForCreation, Stack, OperativeContainerType, LoadUnitType, ...).
 */

import { LIST_PAGE, type PageLimits } from "@fop/kit/paging";
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import {
  LOAD_UNIT_STATUSES,
  LoadUnitListFilters,
  LoadUnitTypeListFilters,
  OPERATIVE_CONTAINER_TYPE_STATUSES,
  OperativeContainerTypeListFilters,
  OperativeType,
  SCANNABLE_IDENTIFIER_SEARCH_TYPES,
  StackListFilters,
} from "../loadunits.ts";
import { LoadUnitLineItemArticle } from "./article.ts";
import {
  CustomAttributes,
  closed,
  DateTime,
  LocaleString,
  listQuery,
  opt,
  PageSizeQuery,
  RequestVersion,
} from "./common.ts";
import { LoadUnitLineItemForCreation } from "./load-unit-line-item.ts";
import { RecordableAttribute, RecordableAttributeForUpdate } from "./recordable-attribute.ts";

const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });
const Locale = Type.String({
  pattern: "^[a-z]{2}([_-][A-Za-z]{2})?$",
  description:
    "Provide the localized names and descriptions if found. If not provided the default locale is used. Example de_DE",
});
export const LocaleQuery = Type.Object({ locale: opt(Locale) });

export const LoadUnitDimensions = Type.Object(
  {
    heightInCm: opt(Type.Number({ description: "The height of the container (in cm)" })),
    lengthInCm: opt(Type.Number()),
    widthInCm: opt(Type.Number()),
    weightInG: opt(Type.Number({ description: "The weight of the container (in g)" })),
  },
  { title: "LoadUnitDimensions" },
);

export const LoadUnitLineItem = Type.Object(
  {
    id: Type.String({ description: "Unique identifier for the line item" }),
    article: LoadUnitLineItemArticle,
    quantity: opt(Type.Number({ description: "The quantity of the lineItem" })),
    customAttributes: opt(CustomAttributes),
    globalLineItemId: opt(
      Type.String({ deprecated: true, description: "Deprecated. Use globalLineItemIds instead." }),
    ),
    globalLineItemIds: opt(Type.Array(Type.String(), { maxItems: 100 })),
    measurementUnitKey: opt(Type.String()),
    originId: opt(Type.String()),
    recordableAttributes: opt(Type.Array(RecordableAttribute, { maxItems: 100 })),
    scannableCodes: opt(Type.Array(Type.String(), { maxItems: 100 })),
    secondaryMeasurementUnitKey: opt(Type.String({ minLength: 1 })),
    secondaryQuantity: opt(Type.Number({ minimum: 0 })),
  },
  { title: "LoadUnitLineItem" },
);

const Codes = Type.Array(Type.String(), { maxItems: 100, description: "List of codes" });
const RefFields = {
  customAttributes: opt(CustomAttributes),
  loadUnitLineItems: opt(Type.Array(LoadUnitLineItemForCreation, { maxItems: 100 })),
  loadUnitTypeRef: opt(
    Type.String({ deprecated: true, description: "Use operativeContainerTypeRef instead." }),
  ),
  operativeContainerTypeRef: opt(Type.String({ description: "the reference to the operativeContainerType" })),
  stackRef: opt(Type.String({ description: "the reference to the stackRef this loadUnit is part of" })),
  storageLocationRef: opt(
    Type.String({ description: "the reference to the storage location this load unit as been placed into" }),
  ),
};

export const LoadUnitForCreation = Type.Object(
  {
    pickJobRefs: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      minItems: 1,
      maxItems: 100,
      description: "List of corresponding pickjob Ids",
    }),
    codes: opt(Codes),
    ...RefFields,
  },
  { title: "LoadUnitForCreation" },
);

export const LoadUnitsForCreation = Type.Object(
  { loadUnits: Type.Array(LoadUnitForCreation, { minItems: 1, maxItems: 100 }) },
  { title: "LoadUnitsForCreation" },
);
export type LoadUnitsForCreation = Static<typeof LoadUnitsForCreation>;

export const LoadUnit = Type.Object(
  {
    id: Type.String(),
    created: DateTime("Creation timestamp"),
    lastModified: DateTime("Last modification timestamp"),
    version: Type.Integer({ description: "Version number for optimistic locking" }),
    facilityRef: Type.String(),
    pickJobRefs: Type.Array(Type.String(), { minItems: 1, maxItems: 100, uniqueItems: true }),
    nameLocalized: LocaleString,
    status: Type.Union(
      LOAD_UNIT_STATUSES.map((v) => Type.Literal(v)),
      {
        description:
          "The status of the load unit. It can be AVAILABLE or OBSOLETE. The status cannot be set from outside.",
      },
    ),
    name: opt(Type.String()),
    description: opt(Type.String()),
    descriptionLocalized: opt(LocaleString),
    codes: opt(Codes),
    customAttributes: opt(CustomAttributes),
    dimensions: opt(LoadUnitDimensions),
    iconUrl: opt(Type.String()),
    loadUnitLineItems: opt(Type.Array(LoadUnitLineItem, { maxItems: 100 })),
    loadUnitTypeRef: opt(Type.String({ deprecated: true })),
    operativeContainerTypeRef: opt(Type.String()),
    operativeProcessRef: opt(Type.String({ minLength: 1 })),
    stackRef: opt(Type.String()),
    storageLocationRef: opt(Type.String()),
    weightLimitInG: opt(Type.Number({ minimum: 1 })),
  },
  { title: "LoadUnit" },
);

export const LoadUnits = Type.Object(
  {
    loadUnits: Type.Array(LoadUnit, { description: "found load units matching the search parameters" }),
    total: Type.Integer({ description: "Total number of found entities for this query" }),
  },
  { title: "LoadUnits" },
);

/**
 * GET /api/loadunits: its filters (declared in the contracts), the page parameters and the locale;
 * REST spells `statuses` its own way too (`[AVAILABLE]`, comma-joined: see parseStatuses).
 */
export const LoadUnitListQuery = Type.Object({
  ...listQuery(LoadUnitListFilters, {
    size: PageSizeQuery(LIST_PAGE, "number of loadUnits to show"),
    startAfterId: opt(Type.String({ maxLength: 256, description: "all entities after given Id" })),
    locale: opt(Locale),
  }).properties,
  statuses: opt(
    Type.Array(Type.String({ maxLength: 40, pattern: "^\\[?[A-Z, ]*\\]?$" }), {
      maxItems: LoadUnitListFilters.properties.statuses.maxItems,
      description: LoadUnitListFilters.properties.statuses.description,
    }),
  ),
});

export const BulkDeleteQuery = Type.Object({
  pickJobRef: opt(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: "Reference to the pickJob of which you want to delete the loadUnits",
    }),
  ),
  id: opt(
    Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      maxItems: 500,
      description: "Load unit ids",
    }),
  ),
});

export const LoadUnitIdParams = Type.Object({ loadUnitId: Id("ID of the load unit") });

/** The deprecated PATCH's first form. */
export const ReplaceLoadUnitLineItems = Type.Object(
  {
    action: Type.Literal("ReplaceLoadUnitLineItems", {
      description: "Use value 'ReplaceLoadUnitLineItems', because you want to replace load unit line items",
    }),
    loadUnitLineItems: Type.Array(LoadUnitLineItem, { maxItems: 100 }),
  },
  { title: "ReplaceLoadUnitLineItems" },
);
export const LoadUnitPatchActions = Type.Object(
  {
    actions: Type.Array(ReplaceLoadUnitLineItems, { minItems: 1, maxItems: 100 }),
    version: RequestVersion(),
  },
  { title: "LoadUnitPatchActions" },
);
/**
 * The deprecated PATCH's second form: a whole LoadUnit, the reference's required fields required
 * and `id` the path's. What it may change (codes, names, sizes, refs, line items) is changed; `status`,
 * `facilityRef`, `pickJobRefs` and the timestamps are the service's. Nullable where null clears.
 * Never a body with `actions` (that is the first form, checked as such).
 */
export const LoadUnitForPatch = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 256, description: "The load unit's id (the path's)" }),
    created: DateTime("Creation timestamp"),
    lastModified: DateTime("Last modification timestamp"),
    version: RequestVersion(),
    facilityRef: Type.String({ description: "Not changed by a PATCH" }),
    pickJobRefs: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: 100,
      description: "Not changed by a PATCH",
    }),
    nameLocalized: LocaleString,
    status: Type.Union(
      LOAD_UNIT_STATUSES.map((v) => Type.Literal(v)),
      {
        description: "Not changed by a PATCH (DELETE sets OBSOLETE)",
      },
    ),
    name: opt(Type.String()),
    description: opt(Type.String()),
    codes: opt(Codes),
    customAttributes: opt(CustomAttributes),
    descriptionLocalized: opt(nullable(LocaleString)),
    dimensions: opt(nullable(LoadUnitDimensions)),
    iconUrl: opt(nullable(Type.String())),
    loadUnitLineItems: opt(Type.Array(LoadUnitLineItem, { maxItems: 100 })),
    loadUnitTypeRef: opt(nullable(Type.String())),
    operativeContainerTypeRef: opt(nullable(Type.String())),
    operativeProcessRef: opt(nullable(Type.String({ minLength: 1 }))),
    stackRef: opt(nullable(Type.String())),
    storageLocationRef: opt(nullable(Type.String())),
    weightLimitInG: opt(nullable(Type.Number({ minimum: 1 }))),
  },
  {
    title: "LoadUnitForPatch",
    description: "A whole LoadUnit: the fields it may change are changed.",
    not: { required: ["actions"] },
  },
);
/**
 * The reference's anyOf. A body with `actions` is LoadUnitPatchActions, any other a whole LoadUnit;
 * the route reports the first problem of that form (patchBodyError), not "must match a schema in anyOf".
 */
export const LoadUnitPatch = Type.Union([LoadUnitPatchActions, LoadUnitForPatch], {
  title: "LoadUnitPatch",
  description:
    "LoadUnitPatchActions (deprecated: use POST /api/loadunits/{loadUnitId}/actions) or a whole LoadUnit. Both name the version they change.",
});

export const LoadUnitActionsParameter = Type.Object(
  {
    name: Type.Literal("UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES", {
      description: "Update the recordable attributes of the line items of a load unit",
    }),
    version: RequestVersion({ minimum: 0 }),
    recordableAttributes: Type.Array(RecordableAttributeForUpdate, { maxItems: 100 }),
  },
  { title: "LoadUnitLineItemUpdateRecordableAttributesActionParameter" },
);

// --- stacks --------------------------------------------------------------------------------------

const Refs = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 50, description });
export const StackForCreation = Type.Object(
  {
    facilityRefs: Refs("Linked Facilities through reference"),
    processRefs: Refs("Linked Processes through reference"),
  },
  { title: "StackForCreation" },
);
export const Stack = Type.Object(
  {
    id: Type.String({ description: "Unique identifier of the Stack" }),
    created: DateTime(),
    lastModified: DateTime(),
    version: Type.Integer(),
    facilityRefs: Type.Array(Type.String(), { maxItems: 50 }),
    processRefs: Type.Array(Type.String(), { maxItems: 50 }),
  },
  { title: "Stack" },
);
export const StackResponse = Type.Object(
  { stacks: Type.Array(Stack), total: Type.Integer() },
  { title: "StackResponse" },
);
/** GET /api/stacks: its filters (declared in the contracts) and the page parameters. */
export const StackListQuery = listQuery(StackListFilters, {
  startAfterId: opt(Type.String({ maxLength: 256, description: "entity to start after" })),
  size: PageSizeQuery(),
});
export const StackIdParams = Type.Object({ stackId: Id("ID of the stack") });

// --- container types -----------------------------------------------------------------------------

export const NamedFile = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256, description: "File name with extension" }),
    content: Type.String({ minLength: 1, description: "File content base64 encoded" }),
  },
  { ...closed, title: "NamedFile" },
);

const ContainerDimensions = Type.Object(
  {
    heightInCm: opt(Type.Number()),
    lengthInCm: opt(Type.Number()),
    widthInCm: opt(Type.Number()),
    weightInG: opt(Type.Number()),
  },
  { ...closed, title: "ContainerDimensions" },
);
const ScannableIdentifier = Type.Object(
  {
    identifiers: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 10 }),
    searchType: opt(Type.Union(SCANNABLE_IDENTIFIER_SEARCH_TYPES.map((v) => Type.Literal(v)))),
  },
  { title: "ScannableIdentifier" },
);
const OctStatus = Type.Union(OPERATIVE_CONTAINER_TYPE_STATUSES.map((v) => Type.Literal(v)));
const OctFields = {
  descriptionLocalized: opt(LocaleString),
  customAttributes: opt(Type.Object({}, { additionalProperties: true })),
  dimensions: opt(ContainerDimensions),
  iconUrl: opt(Type.String({ maxLength: 2048 })),
  priority: opt(Type.Integer({ minimum: 1, maximum: 10000 })),
  scannableIdentifiers: opt(Type.Array(ScannableIdentifier, { maxItems: 1 })),
  status: opt(OctStatus),
  weightLimitInG: opt(Type.Number({ minimum: 1 })),
};
export const OperativeContainerTypeForCreation = Type.Object(
  {
    nameLocalized: LocaleString,
    allowedOperativeTypes: Type.Array(OperativeType, { minItems: 1, maxItems: 10 }),
    icon: opt(NamedFile),
    ...OctFields,
  },
  { title: "OperativeContainerTypeForCreation" },
);
export const OperativeContainerTypeForUpdate = Type.Object(
  {
    version: RequestVersion({ minimum: 1 }),
    nameLocalized: opt(LocaleString),
    allowedOperativeTypes: opt(Type.Array(OperativeType, { minItems: 1, maxItems: 10 })),
    ...OctFields,
  },
  { title: "OperativeContainerTypeForUpdate" },
);
export const OperativeContainerType = Type.Object(
  {
    id: Type.String(),
    version: Type.Integer(),
    nameLocalized: LocaleString,
    allowedOperativeTypes: Type.Array(OperativeType, { minItems: 1 }),
    name: opt(Type.String()),
    description: opt(Type.String()),
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
    ...OctFields,
  },
  { title: "OperativeContainerType" },
);
export const OperativeContainerTypesResponse = Type.Object(
  { operativeContainerTypes: Type.Array(OperativeContainerType), total: Type.Integer() },
  { title: "OperativeContainerTypesResponse" },
);
/** GET /api/operativecontainertypes: its filters (declared in the contracts), the page parameters, the locale. */
export const OperativeContainerTypeListQuery = listQuery(OperativeContainerTypeListFilters, {
  startAfterId: opt(Type.String({ maxLength: 256, description: "entity to start after" })),
  size: PageSizeQuery(),
  locale: opt(Locale),
});
export const OperativeContainerTypeIdParams = Type.Object({
  operativeContainerTypeId: Id("ID of the operative container type"),
});

const LutFields = {
  descriptionLocalized: opt(LocaleString),
  dimensions: opt(LoadUnitDimensions),
  priority: opt(Type.Integer({ minimum: 1, maximum: 10000 })),
  weightLimitInG: opt(Type.Number({ minimum: 1 })),
};
export const LoadUnitTypeForCreation = Type.Object(
  { nameLocalized: LocaleString, icon: opt(NamedFile), ...LutFields },
  { title: "LoadUnitTypeForCreation" },
);
export const ModifyLoadUnitType = Type.Object(
  {
    action: Type.Literal("ModifyLoadUnitType"),
    nameLocalized: opt(LocaleString),
    ...LutFields,
  },
  { title: "ModifyLoadUnitType" },
);
export const LoadUnitTypePatchActions = Type.Object(
  { version: RequestVersion(), actions: Type.Array(ModifyLoadUnitType, { minItems: 1, maxItems: 100 }) },
  { title: "LoadUnitTypePatchActions" },
);
export const LoadUnitType = Type.Object(
  {
    id: Type.String(),
    version: Type.Number(),
    nameLocalized: LocaleString,
    name: opt(Type.String()),
    description: opt(Type.String()),
    created: opt(DateTime()),
    lastModified: opt(DateTime()),
    iconUrl: opt(Type.String()),
    ...LutFields,
  },
  { title: "LoadUnitType" },
);
/** The deprecated load unit type listing pages 10 by default (spec: "a page size, default 10"). */
export const LOAD_UNIT_TYPE_PAGE: PageLimits = { default: 10, maximum: LIST_PAGE.maximum };
/** GET /api/loadunittypes: the page parameters and the locale (it declares no filters). */
export const LoadUnitTypeListQuery = listQuery(LoadUnitTypeListFilters, {
  locale: opt(Locale),
  startAfterId: opt(Type.String({ maxLength: 256 })),
  size: PageSizeQuery(LOAD_UNIT_TYPE_PAGE, "number of entities to show"),
});
export const LoadUnitTypeIdParams = Type.Object({ loadUnitTypeId: Id("ID of the load unit type") });
export const IconIdParams = Type.Object({ iconId: Id("ID of the icon (the last segment of an iconUrl)") });
