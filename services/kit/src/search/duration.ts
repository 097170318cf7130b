import { inInstantRange } from "../datetime.ts";
import { invalid } from "../errors.ts";

const DURATION =
  /^([+-])?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * The instant `now` shifted by an ISO-8601 duration with an optional sign, as the platform's date
 * filters `after`/`before` take them ("-P1D" = one day ago, "P1W" = in a week). Years and months are
 * calendar units (UTC). The en dash the platform's documentation prints is accepted as a minus.
 */
export function shiftByDuration(raw: string, now: Date, field: string): Date {
  const m = DURATION.exec(raw.replace(/^[\u2013\u2212]/, "-"));
  if (!m || raw.endsWith("T") || /^[+-]?P$/.test(raw)) {
    throw invalid(
      "INVALID_DURATION",
      `${JSON.stringify(raw)} is not an ISO-8601 duration such as -P1D or PT12H.`,
      field,
    );
  }
  const sign = m[1] === "-" ? -1 : 1;
  const n = (i: number) => Number(m[i] ?? 0) * sign;
  const d = new Date(now.getTime());
  d.setUTCFullYear(d.getUTCFullYear() + n(2), d.getUTCMonth() + n(3));
  const ms = (((n(4) * 7 + n(5)) * 24 + n(6)) * 60 + n(7)) * 60_000 + n(8) * 1000;
  const at = new Date(d.getTime() + ms);
  if (!inInstantRange(at)) {
    throw invalid(
      "INVALID_DURATION",
      `${JSON.stringify(raw)} reaches outside the years 0001-9999 from now.`,
      field,
    );
  }
  return at;
}
