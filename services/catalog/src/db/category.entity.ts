import { defineEntity, p } from "@mikro-orm/core";

/** catalog.category: one row per category; name_values/sort_name are derived for search. */
export const CategorySchema = defineEntity({
  name: "Category",
  tableName: "category",
  properties: {
    tenantId: p.string().primary(),
    id: p.uuid().primary(),
    version: p.integer().version(),
    created: p.datetime(3),
    lastModified: p.datetime(3),
    tenantCategoryId: p.string().nullable(),
    nameLocalized: p.json<Record<string, string>>(),
    customAttributes: p.json<Record<string, unknown>>().nullable(),
    sortName: p.string().nullable(),
    nameValues: p.array(),
  },
});

export class CategoryEntity extends CategorySchema.class {}
CategorySchema.setClass(CategoryEntity);
