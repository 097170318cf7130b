/** Category use cases: each is one transaction (or one read) scoped to the caller's tenant. */
import type { JsonObject } from "@bufbuild/protobuf";
import type { RequestContext } from "@fop/kit/context";
import { inTransaction, readEm } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { runSearch, type SearchPage, type SearchParams, type SearchResource } from "@fop/kit/search/keyset";
import { LockMode } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { CategoryEntity } from "../db/category.entity.ts";
import { SCHEMA } from "../db/orm.ts";
import {
  type Category,
  type CategoryInput,
  createCategory as create,
  nameIndex,
  replaceCategory as replace,
} from "../domain/category.ts";
import { categoryEvent } from "../events/catalog.events.ts";
import type { CatalogDeps } from "./deps.ts";

const uniqueViolations = {
  category_tenant_category_id_key: () =>
    conflict(
      "TENANT_CATEGORY_ID_TAKEN",
      "Another category of this tenant has this tenantCategoryId.",
      "/tenantCategoryId",
    ),
};

export function toCategory(e: CategoryEntity): Category {
  return {
    id: e.id,
    version: e.version,
    created: e.created,
    lastModified: e.lastModified,
    tenantCategoryId: e.tenantCategoryId ?? null,
    nameLocalized: e.nameLocalized,
    customAttributes: (e.customAttributes as JsonObject | null) ?? null,
  };
}

function writeEntity(e: CategoryEntity, c: Category, defaultLocale: string): void {
  const names = nameIndex(c.nameLocalized, defaultLocale);
  e.lastModified = c.lastModified;
  e.tenantCategoryId = c.tenantCategoryId;
  e.nameLocalized = c.nameLocalized;
  e.customAttributes = c.customAttributes;
  e.sortName = names.sortName;
  e.nameValues = names.values;
}

async function load(
  em: EntityManager,
  ctx: RequestContext,
  id: string,
  forUpdate: boolean,
): Promise<CategoryEntity> {
  const found = isUuid(id)
    ? await em.findOne(
        CategoryEntity,
        { tenantId: ctx.tenant, id },
        forUpdate ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
      )
    : null;
  if (!found) throw notFound("category", id);
  return found;
}

export async function listCategories(
  deps: CatalogDeps,
  ctx: RequestContext,
  size: number,
  startAfterId: string,
) {
  if (startAfterId && !isUuid(startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be the id of an entity.", "startAfterId");
  }
  const rows = await readEm(deps.orm).find(
    CategoryEntity,
    startAfterId ? { tenantId: ctx.tenant, id: { $gt: startAfterId } } : { tenantId: ctx.tenant },
    { orderBy: { id: "asc" }, limit: size },
  );
  return rows.map(toCategory);
}

export async function createCategory(
  deps: CatalogDeps,
  ctx: RequestContext,
  input: CategoryInput,
): Promise<Category> {
  const category = create(input, deps.newId(), deps.now());
  return inTransaction(
    deps.orm,
    async (em) => {
      const e = em.create(CategoryEntity, {
        tenantId: ctx.tenant,
        id: category.id,
        created: category.created,
        lastModified: category.lastModified,
        nameLocalized: category.nameLocalized,
        nameValues: [],
      });
      writeEntity(e, category, deps.defaultLocale);
      await em.flush();
      await deps.outbox.record(em, ctx, [categoryEvent("CREATED", category)]);
      return category;
    },
    uniqueViolations,
  );
}

export async function getCategory(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Category> {
  return toCategory(await load(readEm(deps.orm), ctx, id, false));
}

export async function replaceCategory(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  input: CategoryInput,
): Promise<Category> {
  return inTransaction(
    deps.orm,
    async (em) => {
      const e = await load(em, ctx, id, true);
      const next = replace(toCategory(e), input, version, deps.now());
      writeEntity(e, next, deps.defaultLocale);
      await em.flush();
      const saved = toCategory(e);
      await deps.outbox.record(em, ctx, [categoryEvent("UPDATED", saved)]);
      return saved;
    },
    uniqueViolations,
  );
}

export async function deleteCategory(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Category> {
  return inTransaction(deps.orm, async (em) => {
    const e = await load(em, ctx, id, true);
    const before = toCategory(e);
    em.remove(e);
    await em.flush();
    await deps.outbox.record(em, ctx, [categoryEvent("DELETED", before)]);
    return before;
  });
}

export async function lookupCategoryId(
  deps: CatalogDeps,
  ctx: RequestContext,
  tenantCategoryId: string,
): Promise<string> {
  const e = await readEm(deps.orm).findOne(
    CategoryEntity,
    { tenantId: ctx.tenant, tenantCategoryId },
    { fields: ["id"] },
  );
  if (!e) throw notFound("category", `urn:fft:category:tenantCategoryId:${tenantCategoryId}`);
  return e.id;
}

/** What `POST /api/categories/search` may filter and sort on. */
export const categorySearch: SearchResource = {
  table: `${SCHEMA}.category`,
  select: "t.*",
  fields: {
    id: { kind: "string", column: "t.id", ops: ["eq", "notEq", "in", "notIn"], uuid: true },
    tenantCategoryId: {
      kind: "string",
      column: "t.tenant_category_id",
      ops: ["eq", "notEq", "in", "notIn", "like"],
    },
    name: { kind: "anyElement", column: "t.name_values", ops: ["eq", "notEq", "in", "notIn", "like"] },
    nameLocalized: { kind: "localizedMap", column: "t.name_localized" },
    customAttributes: { kind: "attributeMap", column: "t.custom_attributes" },
  },
  sorts: {
    created: { expr: "t.created", type: "timestamptz", nullable: false },
    lastModified: { expr: "t.last_modified", type: "timestamptz", nullable: false },
    id: { expr: "t.id", type: "uuid", nullable: false },
    name: { expr: "t.sort_name", type: "text", nullable: true },
    tenantCategoryId: { expr: "t.tenant_category_id", type: "text", nullable: true },
    customAttributes: (key, b) => ({
      expr: `(t.custom_attributes -> ${b.param(key, "text")})`,
      type: "jsonb",
      nullable: true,
    }),
  },
};

export async function searchCategories(
  deps: CatalogDeps,
  ctx: RequestContext,
  params: SearchParams,
): Promise<SearchPage<Category>> {
  const em = readEm(deps.orm);
  const page = await runSearch(em, ctx.tenant, categorySearch, params, deps.now());
  return { ...page, rows: page.rows.map((row) => toCategory(em.map(CategoryEntity, row))) };
}
