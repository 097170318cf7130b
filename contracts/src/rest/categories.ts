/** Category request/response schemas, matching the reference (Category, CategoryForCreation, ...). */
import { type Static, Type } from "@sinclair/typebox";
import {
  CustomAttributes,
  DateTime,
  Filters,
  LocaleString,
  PageInfo,
  SearchPayload,
  SearchQuery,
  SortEntry,
} from "./common.ts";

const TenantCategoryId = Type.String({
  minLength: 2,
  maxLength: 256,
  pattern: "^[A-Za-z0-9_-]+$",
  description: "unique identifier for categories used in the customer systems",
  examples: ["MY_CATEGORY_ID"],
});

export const Category = Type.Object(
  {
    id: Type.String(),
    tenantCategoryId: Type.Optional(TenantCategoryId),
    nameLocalized: LocaleString,
    customAttributes: Type.Optional(CustomAttributes),
    created: DateTime(),
    lastModified: DateTime(),
    version: Type.Integer(),
  },
  { title: "Category" },
);

export const CategoryForCreation = Type.Object(
  {
    nameLocalized: LocaleString,
    customAttributes: Type.Optional(CustomAttributes),
    tenantCategoryId: Type.Optional(TenantCategoryId),
  },
  { title: "CategoryForCreation" },
);
export type CategoryForCreation = Static<typeof CategoryForCreation>;

export const CategoryForUpdate = Type.Object(
  {
    nameLocalized: LocaleString,
    customAttributes: Type.Optional(CustomAttributes),
    tenantCategoryId: Type.Optional(TenantCategoryId),
    id: Type.Optional(Type.String()),
    version: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "The version the change is based on",
    }),
  },
  { title: "CategoryForUpdate" },
);
export type CategoryForUpdate = Static<typeof CategoryForUpdate>;

export const CategorySearchQuery = SearchQuery("CategorySearchQuery", {
  id: Filters.StringFilter,
  tenantCategoryId: Filters.StringSearchFilter,
  name: Filters.StringSearchFilter,
  nameLocalized: Type.Record(Type.String(), Type.Union([Filters.StringFilter, Filters.KeyExistsFilter])),
  customAttributes: Type.Record(
    Type.String(),
    Type.Union([Filters.BooleanFilter, Filters.StringEqFilter, Filters.NumberEqFilter, Filters.DateFilter]),
  ),
});

export const CategorySort = SortEntry(
  "CategorySort",
  ["created", "lastModified", "id", "name", "tenantCategoryId"],
  ["customAttributes"],
);

export const CategorySearchPayload = SearchPayload(
  "CategorySearchPayload",
  CategorySearchQuery,
  CategorySort,
);

export const CategoryPaginatedResult = Type.Object(
  {
    categories: Type.Array(Category),
    pageInfo: PageInfo,
    total: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { title: "CategoryPaginatedResult" },
);

export const CategoryIdParams = Type.Object({
  categoryId: Type.String({
    minLength: 1,
    maxLength: 600,
    description: "Id of the category, or urn:fft:category:tenantCategoryId:<value>",
  }),
});
