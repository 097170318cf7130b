/**
 * Instants as the API takes them: RFC 3339 date-times with a 4-digit year and an offset (`Z` or
 * ±hh:mm up to ±15:59, what Postgres accepts), inside the years 0001-9999 once in UTC — the range
 * both JavaScript Dates and Postgres `timestamptz` hold. One parser for query filters, list
 * parameters, cursors and durations, so no out-of-range instant ever reaches the database.
 */
import { invalid } from "./errors.ts";

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(?:[Zz]|([+-])(\d{2}):?(\d{2}))$/;

/** Earliest and latest instant accepted (epoch ms). */
export const INSTANT_RANGE = {
  min: Date.parse("0001-01-01T00:00:00.000Z"),
  max: Date.parse("9999-12-31T23:59:59.999Z"),
} as const;

/** True for a valid Date inside {@link INSTANT_RANGE}. */
export const inInstantRange = (d: Date): boolean => {
  const t = d.getTime();
  return Number.isFinite(t) && t >= INSTANT_RANGE.min && t <= INSTANT_RANGE.max;
};

/** `raw` as a Date when it is an RFC 3339 date-time inside the range; else undefined. */
export function parseInstant(raw: unknown): Date | undefined {
  if (typeof raw !== "string") return undefined;
  const m = RFC3339.exec(raw);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s = 0, offH = 0, offM = 0] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) =>
    Number(m[i] ?? 0),
  );
  if (h! > 23 || mi! > 59 || s > 59 || offH > 15 || offM > 59) return undefined;
  const ms = Number(`${(m[7] ?? ".").slice(1)}000`.slice(0, 3));
  const at = new Date(0);
  at.setUTCFullYear(y!, mo! - 1, d!);
  // setUTCFullYear rolls impossible dates over (02-30 -> 03-02): the fields must come back as given.
  if (at.getUTCFullYear() !== y || at.getUTCMonth() !== mo! - 1 || at.getUTCDate() !== d) return undefined;
  at.setUTCHours(h!, mi!, s, ms);
  const offset = (m[8] === "-" ? -1 : 1) * (offH * 60 + offM) * 60_000;
  const instant = new Date(at.getTime() - offset);
  return inInstantRange(instant) ? instant : undefined;
}

/** {@link parseInstant} or a 400 naming `field`. */
export function requireInstant(raw: unknown, field: string): Date {
  const d = parseInstant(raw);
  if (!d) {
    throw invalid(
      "INVALID_DATE",
      `${field} must be an ISO-8601 date-time between years 0001 and 9999, such as 2024-05-01T12:00:00Z.`,
      field,
    );
  }
  return d;
}
