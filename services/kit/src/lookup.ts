/**
 * Tables indexed by strings that come from outside (action names, orderBy values, roles, field
 * names). A plain object literal answers `table["constructor"]` with Object's own function and
 * `table["__proto__"]` with Object.prototype, which a caller then treats as an entry; a lookup table
 * has no prototype, so only its own entries are found.
 */
export function lookupTable<T>(entries: {
  readonly [key: string]: T;
}): Readonly<Record<string, T | undefined>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
