/**
 * Categories: the rules of creating and replacing one. Pure: no database, no transport.
 */

import { versionConflict } from "@fop/kit/errors";
import type { JsonObject } from "@fop/kit/json";
import {
  checkCustomAttributes,
  checkLocaleString,
  checkTenantIdentifier,
  checkVersion,
} from "@fop/kit/validation";

export interface Category {
  id: string;
  version: number;
  created: Date;
  lastModified: Date;
  tenantCategoryId: string | null;
  nameLocalized: Record<string, string>;
  customAttributes: JsonObject | null;
}

/** What a client may set (CategoryForCreation / the updatable part of CategoryForUpdate). */
export interface CategoryInput {
  tenantCategoryId?: string | undefined;
  nameLocalized: Record<string, string>;
  customAttributes?: JsonObject | null | undefined;
}

/** The reference's pattern and length for tenantCategoryId. */
export const TENANT_CATEGORY_ID = /^[A-Za-z0-9_-]{2,256}$/;

export function validateCategoryInput(input: CategoryInput): void {
  if (input.tenantCategoryId !== undefined) {
    checkTenantIdentifier(input.tenantCategoryId, "/tenantCategoryId", TENANT_CATEGORY_ID);
  }
  checkLocaleString(input.nameLocalized, "/nameLocalized");
  checkCustomAttributes(input.customAttributes, "/customAttributes");
}

export function createCategory(input: CategoryInput, id: string, now: Date): Category {
  validateCategoryInput(input);
  return {
    id,
    version: 1,
    created: now,
    lastModified: now,
    tenantCategoryId: input.tenantCategoryId ?? null,
    nameLocalized: input.nameLocalized,
    customAttributes: input.customAttributes ?? null,
  };
}

/**
 * PUT semantics: every updatable field takes the request's value; omitted optional fields are
 * removed. The request must name the current version.
 */
export function replaceCategory(
  current: Category,
  input: CategoryInput,
  requestVersion: number,
  now: Date,
): Category {
  checkVersion(requestVersion);
  validateCategoryInput(input);
  if (requestVersion !== current.version) throw versionConflict("category", requestVersion, current.version);
  return {
    ...current,
    version: current.version + 1,
    lastModified: now,
    tenantCategoryId: input.tenantCategoryId ?? null,
    nameLocalized: input.nameLocalized,
    customAttributes: input.customAttributes ?? null,
  };
}

/**
 * What search uses for `name`: every localized value (filters match any locale), and one value to
 * sort by (the default locale's, else the alphabetically first locale's).
 */
export function nameIndex(
  nameLocalized: Record<string, string>,
  defaultLocale: string,
): { values: string[]; sortName: string | null } {
  const locales = Object.keys(nameLocalized).sort();
  const values = [...new Set(locales.map((l) => nameLocalized[l]!))];
  const first = locales[0];
  const sortName = nameLocalized[defaultLocale] ?? (first === undefined ? null : nameLocalized[first]!);
  return { values, sortName };
}
