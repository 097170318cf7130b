/**
 * Checks for the platform's shared value types, used by every service's domain (the gateway's JSON
 * schemas check shapes first; these keep services safe when called directly over RPC).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { invalid, versionConflict } from "./errors.ts";

/** Locale keys of a LocaleString: de_DE, en_US, en, pt-BR ... */
export const LOCALE_KEY = /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,2}$/;

/** A LocaleString: object of locale -> text. */
export function checkLocaleString(
  value: Record<string, string>,
  field: string,
  opts: { maxLength?: number } = {},
): void {
  const max = opts.maxLength ?? 1024;
  for (const [locale, text] of Object.entries(value)) {
    if (!LOCALE_KEY.test(locale)) {
      throw invalid(
        "INVALID_LOCALE",
        `${field}: ${JSON.stringify(locale)} is not a locale such as de_DE.`,
        `${field}/${locale}`,
      );
    }
    // Characters as JSON Schema's maxLength counts them (code points, not UTF-16 units).
    if (typeof text !== "string" || [...text].length > max) {
      throw invalid(
        "INVALID_VALUE",
        `${field}/${locale} must be a string of at most ${max} characters.`,
        `${field}/${locale}`,
      );
    }
  }
}

/** Free custom attributes: an object whose keys have no '.' and do not start with '$' (as the platform). */
export function checkCustomAttributes(value: JsonObject | null | undefined, field: string): void {
  if (value === null || value === undefined) return;
  for (const key of Object.keys(value)) {
    if (key === "" || key.includes(".") || key.startsWith("$")) {
      throw invalid(
        "INVALID_CUSTOM_ATTRIBUTE_KEY",
        `${field}: key ${JSON.stringify(key)} must not be empty, contain '.' or start with '$'.`,
        `${field}/${key}`,
      );
    }
  }
}

/** A tenant identifier as used in URNs: 1..256 characters, no whitespace or ':' issues. */
export function checkTenantIdentifier(
  value: string,
  field: string,
  pattern = /^[A-Za-z0-9_-]{2,256}$/,
): void {
  if (!pattern.test(value)) {
    throw invalid("INVALID_IDENTIFIER", `${field} must match ${pattern.source}.`, field);
  }
}

/** The optimistic-locking version a request names: a non-negative whole number. */
export function checkVersion(version: number, field = "/version"): void {
  if (!Number.isSafeInteger(version) || version < 0) {
    throw invalid("INVALID_VERSION", "version must be a non-negative whole number.", field);
  }
}

/**
 * The request must name the entity's current version: 400 VERSION_REQUIRED when it names none,
 * 409 (with requestVersion and version) when it names another.
 */
export function requireCurrentVersion(
  entity: string,
  doc: { version: number },
  version: unknown,
  field = "/version",
): void {
  if (typeof version !== "number" || !Number.isInteger(version)) {
    throw invalid("VERSION_REQUIRED", `${field.slice(1)} must be the ${entity}'s current version.`, field);
  }
  if (version !== doc.version) throw versionConflict(entity, version, doc.version);
}

/**
 * A list the request gives, checked against a limit: undefined when it gives none (and
 * none is needed), 400 INVALID_VALUE when it is not a list, 400 LIMIT_EXCEEDED naming the field
 * when it holds fewer than `min` or more than `max` entries (exactly at a limit is accepted).
 */
export function checkList(list: unknown, max: number, field: string, min = 0): unknown[] | undefined {
  if ((list === undefined || list === null) && min === 0) return undefined;
  if (list !== undefined && list !== null && !Array.isArray(list)) {
    throw invalid("INVALID_VALUE", `${field.slice(1)} must be a list.`, field);
  }
  const items = (list ?? []) as unknown[];
  if (items.length > max || items.length < min) {
    throw invalid(
      "LIMIT_EXCEEDED",
      `${field.slice(1)} holds ${min ? `${min} to ` : "at most "}${max} entries (${items.length} given).`,
      field,
    );
  }
  return items;
}
