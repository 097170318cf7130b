/** Category use cases: each is one transaction (or one read) scoped to the caller's tenant. */
import type { RequestContext } from "@fop/kit/context";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { runSearch, type SearchPage, type SearchParams, type SearchResource } from "@fop/kit/search/keyset";
import {
  CATEGORY_COLUMNS,
  type CategoryRow,
  deleteCategoryRow,
  findCategory,
  findCategoryId,
  insertCategoryStatement,
  listCategoryRows,
  toCategory,
  updateCategory,
} from "../db/category.rows.ts";
import { SCHEMA } from "../db/orm.ts";
import {
  type Category,
  type CategoryInput,
  createCategory as create,
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

async function load(db: Db, ctx: RequestContext, id: string, forUpdate: boolean): Promise<Category> {
  const found = isUuid(id) ? await findCategory(db, ctx.tenant, id, forUpdate) : undefined;
  if (!found) throw notFound("category", id);
  return found;
}

export async function listCategories(
  deps: CatalogDeps,
  ctx: RequestContext,
  size: number,
  startAfterId: string,
): Promise<Category[]> {
  if (startAfterId && !isUuid(startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be the id of an entity.", "startAfterId");
  }
  return listCategoryRows(deps.db, ctx.tenant, size, startAfterId);
}

export async function createCategory(
  deps: CatalogDeps,
  ctx: RequestContext,
  input: CategoryInput,
): Promise<Category> {
  const category = create(input, deps.newId(), deps.now());
  // The row and its event in one statement (no read first: no transaction round trips).
  await deps.outbox.write(
    deps.db,
    ctx,
    insertCategoryStatement(ctx.tenant, category, deps.defaultLocale),
    [categoryEvent("CREATED", category)],
    uniqueViolations,
  );
  return category;
}

export async function getCategory(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Category> {
  return load(deps.db, ctx, id, false);
}

export async function replaceCategory(
  deps: CatalogDeps,
  ctx: RequestContext,
  id: string,
  version: number,
  input: CategoryInput,
): Promise<Category> {
  return inTransaction(
    deps.db,
    async (tx) => {
      const next = replace(await load(tx, ctx, id, true), input, version, deps.now());
      await updateCategory(tx, ctx.tenant, next, deps.defaultLocale);
      await deps.outbox.record(tx, ctx, [categoryEvent("UPDATED", next)]);
      return next;
    },
    uniqueViolations,
  );
}

export async function deleteCategory(deps: CatalogDeps, ctx: RequestContext, id: string): Promise<Category> {
  return inTransaction(deps.db, async (tx) => {
    const before = await load(tx, ctx, id, true);
    await deleteCategoryRow(tx, ctx.tenant, id);
    await deps.outbox.record(tx, ctx, [categoryEvent("DELETED", before)]);
    return before;
  });
}

export async function lookupCategoryId(
  deps: CatalogDeps,
  ctx: RequestContext,
  tenantCategoryId: string,
): Promise<string> {
  const id = await findCategoryId(deps.db, ctx.tenant, tenantCategoryId);
  if (!id) throw notFound("category", `urn:fft:category:tenantCategoryId:${tenantCategoryId}`);
  return id;
}

/** What `POST /api/categories/search` may filter and sort on. */
export const categorySearch: SearchResource = {
  table: `${SCHEMA}.category`,
  select: CATEGORY_COLUMNS,
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
  const page = await runSearch(deps.db, ctx.tenant, categorySearch, params, {
    cursors: deps.cursors,
    now: deps.now(),
  });
  return { ...page, rows: page.rows.map((row) => toCategory(row as unknown as CategoryRow)) };
}
