/** Facility schemas: the reference's ManagedFacility/Supplier shapes, for the fields the registry keeps. */

import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { PHONE_NUMBER_TYPES } from "../common.ts";
import {
  FACILITY_STATUSES,
  FACILITY_TYPES,
  type FacilityDetailKey,
  FacilityListFilters,
  LOCATION_TYPES,
} from "../facilities.ts";
import { PICKING_METHODS } from "../picking.ts";
import { CustomAttributes, closed, DateTime, listQuery, OneOf, opt } from "./common.ts";
import { CurrencyCode } from "./currency.ts";

const NonEmpty = Type.String({ pattern: "^.+$" });
const nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

const Enum = (values: readonly string[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const FacilityAddress = Type.Object(
  {
    companyName: opt(Type.String()),
    street: opt(NonEmpty),
    houseNumber: opt(NonEmpty),
    postalCode: opt(NonEmpty),
    city: opt(NonEmpty),
    country: opt(Type.String({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2" })),
    province: opt(NonEmpty),
    additionalAddressInfo: opt(Type.String()),
    customAttributes: opt(Type.Object({}, { additionalProperties: true })),
    phoneNumbers: opt(
      Type.Array(
        Type.Object({
          value: Type.String(),
          type: Enum(PHONE_NUMBER_TYPES),
          label: opt(Type.String()),
          customAttributes: opt(Type.Object({}, { additionalProperties: true })),
        }),
        { maxItems: 500 },
      ),
    ),
    emailAddresses: opt(
      Type.Array(Type.Object({ value: Type.String(), recipient: opt(Type.String()) }), { maxItems: 10 }),
    ),
    resolvedCoordinates: opt(Type.Object({ lat: Type.Number(), lon: Type.Number() })),
    resolvedTimeZone: opt(
      Type.Object({
        timeZoneId: Type.String(),
        timeZoneName: opt(Type.String()),
        offsetInSeconds: opt(Type.Number()),
        source: opt(Type.String()),
      }),
    ),
  },
  { title: "FacilityAddress" },
);

/** Reference fields the registry stores as given (not interpreted by the catalog): one per FACILITY_DETAIL_KEYS. */
const FACILITY_SERVICE_TYPES = ["SHIP_FROM_STORE", "PICKUP"] as const;

export const detailProperties = {
  capacityEnabled: Type.Boolean(),
  capacityPlanningTimeframe: Type.Integer({ minimum: 1 }),
  closingDays: Type.Array(
    Type.Object({ date: DateTime(), reason: Type.String(), recurrence: Enum(["YEARLY", "NONRECURRING"]) }),
  ),
  configs: Type.Array(Type.Object({ ref: opt(Type.String()), rel: opt(Type.String()) })),
  contact: Type.Object({
    firstName: Type.String(),
    lastName: Type.String(),
    roleDescription: opt(Type.String()),
    customAttributes: opt(Type.Object({}, { additionalProperties: true })),
  }),
  fulfillmentProcessBuffer: Type.Integer({ minimum: 0 }),
  operativeCosts: Type.Array(
    Type.Object({
      value: Type.Integer({ minimum: 0 }),
      currency: CurrencyCode,
      decimalPlaces: opt(Type.Integer({ minimum: 0 })),
    }),
    { maxItems: 1 },
  ),
  pickingMethods: Type.Array(Enum(PICKING_METHODS)),
  pickingTimes: Type.Object({}, { additionalProperties: true }),
  scanningRule: Type.Object({}, { additionalProperties: true }),
  services: Type.Array(
    Type.Object(
      { type: Enum(FACILITY_SERVICE_TYPES) },
      { title: "FacilityService", additionalProperties: false },
    ),
  ),
  tags: Type.Array(Type.Object({ id: Type.String(), value: Type.String() }), { minItems: 1 }),
} as const satisfies Record<FacilityDetailKey, TSchema>;

const optionalDetails = Object.fromEntries(Object.entries(detailProperties).map(([k, v]) => [k, opt(v)]));
const nullableDetails = Object.fromEntries(
  Object.entries(detailProperties).map(([k, v]) => [k, nullable(v)]),
);

/** ManagedFacilityForCreation | SupplierForCreation (which fields a type needs is checked by the service). */
export const FacilityForCreation = Type.Object(
  {
    name: Type.String({ minLength: 1, examples: ["Hamburg NW2"] }),
    type: opt(Enum(FACILITY_TYPES)),
    status: opt(Enum(FACILITY_STATUSES)),
    tenantFacilityId: opt(Type.String({ minLength: 1, maxLength: 256, examples: ["K12345"] })),
    locationType: opt(Enum(LOCATION_TYPES)),
    address: opt(FacilityAddress),
    customAttributes: opt(Type.Object({}, { additionalProperties: true })),
    ...optionalDetails,
  },
  { title: "FacilityForCreation" },
);
export type FacilityForCreation = Static<typeof FacilityForCreation>;

const modificationFields = {
  name: opt(Type.String({ minLength: 1 })),
  status: opt(Enum(FACILITY_STATUSES)),
  tenantFacilityId: nullable(Type.String({ minLength: 1, maxLength: 256 })),
  locationType: nullable(Enum(LOCATION_TYPES)),
  address: opt(FacilityAddress),
  customAttributes: nullable(Type.Object({}, { additionalProperties: true })),
  ...nullableDetails,
};

const modificationVersion = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/**
 * ManagedFacilityForModification: `type` and `version` required, nothing else allowed. The
 * reference's `type` is the whole FacilityType enum in both modification forms, so a SUPPLIER may
 * use this form too (as on the platform); which fields a type takes is checked by the service.
 */
export const ManagedFacilityForModification = Type.Object(
  { type: Enum(FACILITY_TYPES), version: modificationVersion, ...modificationFields },
  { title: "ManagedFacilityForModification", additionalProperties: false },
);

/** SupplierForModification: the supplier's fields only. */
export const SupplierForModification = Type.Object(
  {
    type: Enum(FACILITY_TYPES),
    version: modificationVersion,
    name: modificationFields.name,
    status: modificationFields.status,
    tenantFacilityId: modificationFields.tenantFacilityId,
    address: opt(nullable(FacilityAddress)),
    customAttributes: modificationFields.customAttributes,
  },
  { title: "SupplierForModification", additionalProperties: false },
);

/** Deprecated FacilityPatchActions: {version, actions: [ModifyFacility...]} (open, as the reference). */
export const FacilityPatchActions = Type.Object(
  {
    version: modificationVersion,
    actions: Type.Array(
      Type.Object(
        {
          action: Type.Literal("ModifyFacility"),
          ...modificationFields,
          // The action's own (inline, open) service item, unlike the closed FacilityService.
          services: nullable(Type.Array(Type.Object({ type: Enum(FACILITY_SERVICE_TYPES) }))),
        },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
  },
  { title: "FacilityPatchActions", deprecated: true },
);

export const FacilityPatch = Type.Union(
  [FacilityPatchActions, ManagedFacilityForModification, SupplierForModification],
  { title: "FacilityPatch" },
);
export type FacilityPatchBody = Static<typeof FacilityPatch>;

/**
 * ManagedFacilityForReplacement (PUT): the whole facility on the version it names; what it leaves
 * out is removed. Required as in the reference.
 */
export const ManagedFacilityForReplacement = Type.Object(
  {
    type: Type.Literal("MANAGED_FACILITY"),
    version: modificationVersion,
    name: Type.String({ minLength: 1, examples: ["Hamburg NW2"] }),
    status: Enum(FACILITY_STATUSES),
    tenantFacilityId: opt(Type.String({ minLength: 1, maxLength: 256, examples: ["K12345"] })),
    locationType: Enum(LOCATION_TYPES),
    address: FacilityAddress,
    customAttributes: opt(Type.Object({}, { additionalProperties: true })),
    ...optionalDetails,
    fulfillmentProcessBuffer: detailProperties.fulfillmentProcessBuffer,
    capacityEnabled: detailProperties.capacityEnabled,
  },
  { title: "ManagedFacilityForReplacement", ...closed },
);

/** SupplierForReplacement (PUT): the supplier's fields only. */
export const SupplierForReplacement = Type.Object(
  {
    type: Type.Literal("SUPPLIER"),
    version: modificationVersion,
    name: Type.String({ minLength: 1 }),
    status: Enum(FACILITY_STATUSES),
    tenantFacilityId: opt(Type.String({ minLength: 1, maxLength: 256 })),
    address: opt(FacilityAddress),
    customAttributes: opt(Type.Object({}, { additionalProperties: true })),
    tags: opt(detailProperties.tags),
  },
  { title: "SupplierForReplacement", ...closed },
);

export const FacilityForReplacement = OneOf("type", [ManagedFacilityForReplacement, SupplierForReplacement], {
  title: "FacilityForReplacement",
});
export type FacilityForReplacement = Static<typeof FacilityForReplacement>;

/** The fields a facility and its stripped form (the list's) both start with, in this order. */
const facilityHead = {
  id: Type.String(),
  version: Type.Integer(),
  created: DateTime(),
  lastModified: DateTime(),
  name: Type.String(),
  type: Enum(FACILITY_TYPES),
  status: Enum(FACILITY_STATUSES),
  tenantFacilityId: opt(Type.String()),
};

export const Facility = Type.Object(
  {
    ...facilityHead,
    locationType: opt(Enum(LOCATION_TYPES)),
    address: opt(FacilityAddress),
    customAttributes: opt(CustomAttributes),
    ...optionalDetails,
  },
  { title: "Facility" },
);

/** StrippedManagedFacility: versioned fields, address fields flattened, id, name, status, type. */
export const StrippedFacility = Type.Object(
  {
    ...facilityHead,
    ...Object.fromEntries(
      [
        "companyName",
        "street",
        "houseNumber",
        "postalCode",
        "city",
        "country",
        "province",
        "additionalAddressInfo",
      ].map((k) => [k, opt(Type.String())]),
    ),
  },
  { title: "StrippedFacility" },
);

export const StrippedFacilities = Type.Object(
  { facilities: Type.Array(StrippedFacility), total: Type.Integer({ minimum: 0 }) },
  { title: "StrippedFacilities" },
);

/** GET /api/facilities: its filters (declared in the contracts) and the page parameters. */
export const FacilityListQuery = listQuery(FacilityListFilters);

export const FacilityIdParams = Type.Object({
  facilityId: Type.String({
    minLength: 1,
    maxLength: 600,
    description: "Id of the facility, or urn:fft:facility:tenantFacilityId:<value>",
  }),
});
