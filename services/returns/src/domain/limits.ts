import { invalid } from "@fop/kit/errors";

/**
 * A list the request gives, checked against the spec's limits: undefined when it gives none (and
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
