/**
 * Reading and writing category rows with plain SQL, one statement per step (no ORM unit of work on
 * the request path; MikroORM only runs the migrations). Fixed statements are prepared (kit db/sql). `name_values`/`sort_name` are derived from
 * the names on every write (domain nameIndex) for search.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { type Db, query, type Sql } from "@fop/kit/db/sql";
import { documentJson } from "@fop/kit/rpc/proto";
import type { Category } from "../domain/category.ts";
import { nameIndex } from "../domain/category.ts";
import { SCHEMA } from "./orm.ts";

/** The columns a Category is read from (instants as epoch milliseconds). */
export const CATEGORY_COLUMNS = `t.id, t.version, t.tenant_category_id, t.name_localized, t.custom_attributes,
  (extract(epoch from t.created) * 1000)::float8 as created_ms,
  (extract(epoch from t.last_modified) * 1000)::float8 as last_modified_ms`;

export interface CategoryRow {
  id: string;
  version: number;
  tenant_category_id: string | null;
  name_localized: Record<string, string>;
  custom_attributes: JsonObject | null;
  created_ms: number;
  last_modified_ms: number;
}

export const toCategory = (r: CategoryRow): Category => ({
  id: r.id,
  version: r.version,
  created: new Date(r.created_ms),
  lastModified: new Date(r.last_modified_ms),
  tenantCategoryId: r.tenant_category_id,
  nameLocalized: r.name_localized,
  customAttributes: r.custom_attributes,
});

/** The REST read model (reference Category) as UTF-8 JSON, what the gateway sends as it is. */
export function categoryJson(c: Category): Uint8Array {
  return documentJson({
    id: c.id,
    ...(c.tenantCategoryId !== null ? { tenantCategoryId: c.tenantCategoryId } : {}),
    nameLocalized: c.nameLocalized,
    ...(c.customAttributes !== null ? { customAttributes: c.customAttributes } : {}),
    created: c.created.toISOString(),
    lastModified: c.lastModified.toISOString(),
    version: c.version,
  });
}

export async function findCategory(
  db: Db,
  tenant: string,
  id: string,
  forUpdate: boolean,
): Promise<Category | undefined> {
  const [row] = await query<CategoryRow>(db, {
    text: `select ${CATEGORY_COLUMNS} from ${SCHEMA}.category t where t.tenant_id = $1 and t.id = $2::uuid${forUpdate ? " for update" : ""}`,
    params: [tenant, id],
    prepare: true,
  });
  return row ? toCategory(row) : undefined;
}

/** A page in id order, after `startAfterId` when given. */
export async function listCategoryRows(
  db: Db,
  tenant: string,
  size: number,
  startAfterId: string,
): Promise<Category[]> {
  const rows = await query<CategoryRow>(db, {
    text: `select ${CATEGORY_COLUMNS} from ${SCHEMA}.category t where t.tenant_id = $1${startAfterId ? " and t.id > $3::uuid" : ""} order by t.id limit $2`,
    params: startAfterId ? [tenant, size, startAfterId] : [tenant, size],
    prepare: true,
  });
  return rows.map(toCategory);
}

const INSERT = `insert into ${SCHEMA}.category
  (tenant_id, id, version, created, last_modified, tenant_category_id, name_localized, custom_attributes, sort_name, name_values)
  values ($1, $2::uuid, $3, $4::timestamptz, $4::timestamptz, $5, $6::jsonb, $7::jsonb, $8, $9::text[])`;

const UPDATE = `update ${SCHEMA}.category set version = $3, last_modified = $4::timestamptz, tenant_category_id = $5,
  name_localized = $6::jsonb, custom_attributes = $7::jsonb, sort_name = $8, name_values = $9::text[]
  where tenant_id = $1 and id = $2::uuid`;

function values(tenant: string, c: Category, defaultLocale: string, at: Date): unknown[] {
  const names = nameIndex(c.nameLocalized, defaultLocale);
  return [
    tenant,
    c.id,
    c.version,
    at.toISOString(),
    c.tenantCategoryId,
    JSON.stringify(c.nameLocalized),
    c.customAttributes === null ? null : JSON.stringify(c.customAttributes),
    names.sortName,
    names.values,
  ];
}

/** The INSERT of a new category (for Outbox.write, which adds its events in the same statement). */
export const insertCategoryStatement = (tenant: string, c: Category, defaultLocale: string): Sql => ({
  text: INSERT,
  params: values(tenant, c, defaultLocale, c.created),
  prepare: true,
});

/** Writes a changed category; the caller holds the row lock (findCategory with forUpdate). */
export async function updateCategory(
  db: Db,
  tenant: string,
  c: Category,
  defaultLocale: string,
): Promise<void> {
  await query(db, { text: UPDATE, params: values(tenant, c, defaultLocale, c.lastModified), prepare: true });
}

export async function deleteCategoryRow(db: Db, tenant: string, id: string): Promise<void> {
  await query(db, {
    text: `delete from ${SCHEMA}.category where tenant_id = $1 and id = $2::uuid`,
    params: [tenant, id],
    prepare: true,
  });
}

export async function findCategoryId(
  db: Db,
  tenant: string,
  tenantCategoryId: string,
): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(db, {
    text: `select id from ${SCHEMA}.category where tenant_id = $1 and tenant_category_id = $2`,
    params: [tenant, tenantCategoryId],
    prepare: true,
  });
  return row?.id;
}
