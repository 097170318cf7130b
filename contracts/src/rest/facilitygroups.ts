/** Facility group schemas, matching the reference (FacilityGroup, FacilityGroupForCreation, ...). */

import { Type } from "@sinclair/typebox";
import { FacilityGroupListFilters } from "../facilities.ts";
import {
  CustomAttributes,
  DateTime,
  Filters,
  LocaleString,
  listQuery,
  OneOf,
  opt,
  PageInfo,
  SearchPayload,
  SearchQuery,
  SortEntry,
} from "./common.ts";

const FACILITY_REFS_DESCRIPTION =
  "Facilities of the tenant in this group, unique. At most 1000 per group and 20 groups per facility by default (FACILITIES_PER_GROUP, FACILITY_GROUPS_PER_FACILITY).";
const FacilityRefs = Type.Array(Type.String({ maxLength: 256 }), {
  uniqueItems: true,
  maxItems: 100_000,
  description: FACILITY_REFS_DESCRIPTION,
});
const TenantFacilityGroupId = Type.String({
  minLength: 1,
  maxLength: 256,
  description: "The id of the facility group in the tenant's own system (unique; usable in URNs)",
});
const NameLocalized = Type.Record(Type.String(), Type.String(), {
  minProperties: 1,
  description: "The localized name",
});

export const FacilityGroup = Type.Object(
  {
    id: Type.String(),
    tenantFacilityGroupId: TenantFacilityGroupId,
    nameLocalized: LocaleString,
    name: opt(Type.String({ description: "The name in the default locale (else the first locale)" })),
    facilityRefs: Type.Array(Type.String()),
    facilityCount: Type.Number(),
    customAttributes: opt(CustomAttributes),
    version: Type.Number(),
    created: DateTime(),
    lastModified: DateTime(),
  },
  { title: "FacilityGroup" },
);

export const FacilityGroupForCreation = Type.Object(
  {
    tenantFacilityGroupId: TenantFacilityGroupId,
    nameLocalized: NameLocalized,
    facilityRefs: FacilityRefs,
    customAttributes: opt(CustomAttributes),
  },
  { title: "FacilityGroupForCreation" },
);

export const FacilityGroupForUpdate = Type.Object(
  {
    version: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "The version the change is based on",
    }),
    tenantFacilityGroupId: opt(TenantFacilityGroupId),
    nameLocalized: opt(NameLocalized),
    facilityRefs: opt(FacilityRefs),
    customAttributes: opt(CustomAttributes),
  },
  {
    title: "FacilityGroupForUpdate",
    description:
      "Replaces every updatable field: facilityRefs and customAttributes left out are removed; tenantFacilityGroupId and nameLocalized left out stay.",
  },
);

export const FacilityGroups = Type.Object(
  { facilityGroups: Type.Array(FacilityGroup), total: Type.Number() },
  { title: "FacilityGroups" },
);

/** GET /api/facilitygroups: its filters (declared in the contracts) and the page parameters. */
export const FacilityGroupListQuery = listQuery(FacilityGroupListFilters);

export const FacilityGroupIdParams = Type.Object({ facilityGroupId: Type.String({ maxLength: 512 }) });

const Facilities = (description: string) =>
  Type.Array(Type.String({ maxLength: 256 }), { minItems: 1, maxItems: 200, description });
const Version = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: "Version of the entity to be changed",
});

export const FacilityGroupActionsParameter = OneOf(
  "name",
  [
    Type.Object(
      {
        name: Type.Literal("ADD_FACILITIES_TO_GROUP"),
        facilitiesToAdd: Facilities("Facilities to add (1 to 200)"),
        version: opt(Version),
      },
      { title: "AddFacilitiesToGroupActionParameter" },
    ),
    Type.Object(
      {
        name: Type.Literal("VERSIONLESS_ADD_FACILITIES_TO_GROUP"),
        facilitiesToAdd: Facilities("Facilities to add (1 to 200)"),
      },
      { title: "AddFacilitiesToGroupVersionlessActionParameter" },
    ),
    Type.Object(
      {
        name: Type.Literal("REMOVE_FACILITIES_FROM_GROUP"),
        facilitiesToRemove: Facilities("Facilities to remove (1 to 200)"),
        version: Version,
      },
      { title: "RemoveFacilitiesFromGroupActionParameter" },
    ),
    Type.Object(
      {
        name: Type.Literal("VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP"),
        facilitiesToRemove: Facilities("Facilities to remove (1 to 200)"),
      },
      { title: "RemoveFacilitiesFromGroupVersionlessActionParameter" },
    ),
  ],
  { title: "FacilityGroupActionsParameter" },
);

export const FacilityGroupSearchQuery = SearchQuery("FacilityGroupSearchQuery", {
  id: Filters.StringFilter,
  tenantFacilityGroupId: Filters.StringFilter,
  name: Filters.StringSearchFilter,
  facilityRefs: Type.Object({ contains: Filters.StringEqFilter }, { additionalProperties: false }),
});

export const FacilityGroupSort = SortEntry("FacilityGroupSort", [
  "facilityCount",
  "name",
  "tenantFacilityGroupId",
]);

export const FacilityGroupSearchPayload = SearchPayload(
  "FacilityGroupSearchPayload",
  FacilityGroupSearchQuery,
  FacilityGroupSort,
);

export const FacilityGroupPaginatedResult = Type.Object(
  { facilityGroups: Type.Array(FacilityGroup), pageInfo: PageInfo, total: opt(Type.Number({ minimum: 0 })) },
  { title: "FacilityGroupPaginatedResult" },
);
