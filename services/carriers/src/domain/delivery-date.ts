/**
 * Delivery date estimate: the earliest and latest local delivery date of a parcel handed to a carrier
 * at an instant, from a source place to a destination place, under the carrier configuration's
 * countryServiceMappings and non-delivery calendars. Pure functions; only Intl and Date, no I/O.
 *
 * The rules:
 * 1. Mapping: a mapping serves the route when its source region matches the source place and one of
 *    its destination regions matches the destination place. A region matches a place when the
 *    country codes are equal (case-insensitive) and the region lists no postal codes, or one listed
 *    code is a prefix of (or equal to) the place's postal code (case-insensitive, blank codes
 *    ignored). A place without postal code matches only regions without postal codes. Mappings
 *    without transitTime are ignored. The most specific serving mapping wins: a destination matched
 *    by postal code beats a country-wide one; then a source matched by postal code beats a
 *    country-wide one; then the first in stored order.
 * 2. Handover: the local date and minute of day of `handoverAt` in `timeZone`. An unknown time zone
 *    (or an invalid `handoverAt`) is a RangeError.
 * 3. Working day of a place: not one of its country entry's recurringNonDeliveryWeekdays, not one of
 *    its nonDeliveryDays (SINGLE, the default: that date; RECURRING: that month and day every year),
 *    and, when the place names a province that has an entry in nonDeliveryDaysPerProvince, not
 *    excluded by that entry either. Countries and provinces compare case-insensitively. A country
 *    without entry delivers every day.
 * 4. Shipping date: the handover date when the local handover time is strictly before
 *    countAsTransitDayBefore ("HH:MM"; none = no cutoff) and it is a working day at the source;
 *    otherwise the next working day at the source.
 * 5. Delivery date for N transit days: from the shipping date, N steps to the next working day at the
 *    destination. N = 0: the shipping date if it is a destination working day, else the next one.
 * 6. earliestDeliveryDate uses minTransitDays, latestDeliveryDate maxTransitDays; deliveryDate is
 *    the one the strategy names.
 * 7. Every search for a working day looks at MAX_SEARCH_DAYS days at most, then the answer is
 *    `no-delivery-day`.
 * Days are stepped on calendar dates in UTC arithmetic, so daylight saving never shifts a date.
 */
import {
  type CalculationStrategy,
  type NonDeliveryType,
  WEEKDAYS,
  type Weekday,
} from "@fop/contracts/carriers";

export type { Weekday };

export interface NonDeliveryDays {
  /** "YYYY-MM-DD"; a date-time such as "2020-02-03T00:00:00.000Z" counts by its first 10 chars. */
  nonDeliveryDay: string;
  /** SINGLE (the default): that date only; RECURRING: that month and day in every year. */
  nonDeliveryType?: NonDeliveryType;
}

export interface NonDeliveryDaysPerProvince {
  province: string;
  nonDeliveryDays: NonDeliveryDays[];
  recurringNonDeliveryWeekdays: Weekday[];
}

export interface NonDeliveryDaysPerCountryAndProvince {
  country: string;
  nonDeliveryDays: NonDeliveryDays[];
  recurringNonDeliveryWeekdays: Weekday[];
  nonDeliveryDaysPerProvince: NonDeliveryDaysPerProvince[];
}

export interface RegionInformation {
  countryCode: string;
  /** Prefixes of the postal codes the region covers; absent or empty = the whole country. */
  postalCodes?: string[];
}

export interface MappingForEstimate {
  id: string;
  source: RegionInformation;
  destinations: RegionInformation[];
  transitTime?: { minTransitDays: number; maxTransitDays: number };
  /** "HH:MM" (00:00-23:59): a handover at or after it does not count as a transit day. */
  countAsTransitDayBefore?: string;
}

export interface Place {
  countryCode: string;
  postalCode?: string;
  province?: string;
}

export interface EstimateInput {
  /** The instant the parcel is handed to the carrier. */
  handoverAt: Date;
  /** IANA zone of the handover location (e.g. "Europe/Berlin"): the local date and time are taken in it. */
  timeZone: string;
  source: Place;
  destination: Place;
  /** The carrier configuration's countryServiceMappings, in stored order. */
  mappings: MappingForEstimate[];
  /** The carrier configuration's nonDeliveryDaysPerCountryAndProvince. */
  nonDeliveryDays: NonDeliveryDaysPerCountryAndProvince[];
  strategy: CalculationStrategy;
}

/** Dates are local calendar dates "YYYY-MM-DD"; transit days are the whole days used. */
export type EstimateResult =
  | {
      kind: "estimate";
      mappingId: string;
      shippingDate: string;
      earliestDeliveryDate: string;
      latestDeliveryDate: string;
      deliveryDate: string;
      minTransitDays: number;
      maxTransitDays: number;
    }
  /** No mapping with a transitTime serves source -> destination. */
  | { kind: "no-mapping" }
  /** The calendars leave no working day within MAX_SEARCH_DAYS. */
  | { kind: "no-delivery-day" };

/** A mapping that has a transit time. */
export type MappingWithTransitTime = MappingForEstimate & {
  transitTime: NonNullable<MappingForEstimate["transitTime"]>;
};

/** How many days one search for a working day looks at before giving up (two years and a day). */
export const MAX_SEARCH_DAYS = 731;

/** A calendar date as whole days since 1970-01-01 (UTC arithmetic: no time of day, no DST). */
type Day = number;

const MS_PER_DAY = 86_400_000;
/** The weekdays indexed by Date#getUTCDay(): Sunday first (the contracts list Monday first). */
const BY_UTC_DAY: readonly Weekday[] = [WEEKDAYS[6], ...WEEKDAYS.slice(0, 6)];

const norm = (s: string): string => s.trim().toUpperCase();

/** The calendar day year-month-day (month 1-12), or undefined when no such date exists. */
function calendarDay(year: number, month: number, day: number): Day | undefined {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0-99 as they are
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.getTime() / MS_PER_DAY;
}

/** "YYYY-MM-DD" (or a date-time starting with it) as a Day; undefined when it is no date. */
function parseDay(text: string): Day | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.slice(0, 10));
  return m ? calendarDay(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
}

const isoDate = (day: Day): string => new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
const monthAndDay = (day: Day): string => isoDate(day).slice(5);
const weekdayOf = (day: Day): Weekday => BY_UTC_DAY[new Date(day * MS_PER_DAY).getUTCDay()]!;

/** True when `tz` is a time zone Intl knows (an IANA name such as "Europe/Berlin", or "UTC"). */
export function checkTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

interface LocalHandover {
  day: Day;
  minuteOfDay: number;
}

/** The local date and minute of day of `at` in `timeZone`; RangeError for an invalid date or zone. */
function localHandover(at: Date, timeZone: string): LocalHandover {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): number =>
    Number(parts.find((p) => p.type === type)?.value);
  const day = calendarDay(part("year"), part("month"), part("day"));
  if (day === undefined) throw new RangeError(`Cannot read a local date of ${at.toISOString()}.`);
  return { day, minuteOfDay: part("hour") * 60 + part("minute") };
}

/** "HH:MM" (or "H:MM") as minutes after midnight; anything else is no cutoff. */
function parseCutoff(hhmm: string | undefined): number | undefined {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm?.trim() ?? "");
  if (!m) return undefined;
  const [hours, minutes] = [Number(m[1]), Number(m[2])];
  return hours < 24 && minutes < 60 ? hours * 60 + minutes : undefined;
}

/** How a region matches a place: by one of its postal codes, country-wide, or not at all. */
function regionMatch(region: RegionInformation, place: Place): "postal" | "country" | undefined {
  if (norm(region.countryCode) !== norm(place.countryCode)) return undefined;
  const codes = (region.postalCodes ?? []).map(norm).filter((c) => c !== "");
  if (codes.length === 0) return "country";
  const postalCode = norm(place.postalCode ?? "");
  return postalCode !== "" && codes.some((c) => postalCode.startsWith(c)) ? "postal" : undefined;
}

/** How specific a mapping is for the route (higher wins), or undefined when it does not serve it. */
function specificity(mapping: MappingForEstimate, source: Place, destination: Place): number | undefined {
  const from = regionMatch(mapping.source, source);
  const to = mapping.destinations.map((d) => regionMatch(d, destination));
  const toRank = to.includes("postal") ? 2 : to.includes("country") ? 0 : undefined;
  if (from === undefined || toRank === undefined) return undefined;
  return toRank + (from === "postal" ? 1 : 0);
}

/**
 * The mapping that serves source -> destination (rule 1): only mappings with a transitTime; a
 * destination matched by postal code first, then a source matched by postal code, then stored order.
 */
export function chooseMapping(
  mappings: readonly MappingForEstimate[],
  source: Place,
  destination: Place,
): MappingWithTransitTime | undefined {
  let best: MappingWithTransitTime | undefined;
  let bestRank = -1;
  for (const mapping of mappings) {
    if (!mapping.transitTime) continue;
    const rank = specificity(mapping, source, destination);
    if (rank !== undefined && rank > bestRank) {
      best = { ...mapping, transitTime: mapping.transitTime };
      bestRank = rank;
    }
  }
  return best;
}

/** The non-delivery rules of one country or province entry, ready for lookups. */
interface Exclusions {
  weekdays: Set<string>;
  singleDays: Set<Day>;
  recurringMonthDays: Set<string>;
}

function exclusions(weekdays: readonly Weekday[], days: readonly NonDeliveryDays[]): Exclusions {
  const result: Exclusions = {
    weekdays: new Set(weekdays.map(norm)),
    singleDays: new Set(),
    recurringMonthDays: new Set(),
  };
  for (const { nonDeliveryDay, nonDeliveryType } of days) {
    const day = parseDay(nonDeliveryDay);
    if (day === undefined) continue; // not a date: excludes nothing
    if (nonDeliveryType === "RECURRING") result.recurringMonthDays.add(monthAndDay(day));
    else result.singleDays.add(day);
  }
  return result;
}

function excludes(e: Exclusions, day: Day): boolean {
  return (
    e.weekdays.has(weekdayOf(day)) || e.singleDays.has(day) || e.recurringMonthDays.has(monthAndDay(day))
  );
}

/** Whether a day is a working day for `place` (rule 3). */
function workingDays(
  place: Place,
  calendars: readonly NonDeliveryDaysPerCountryAndProvince[],
): (day: Day) => boolean {
  const country = norm(place.countryCode);
  const province = place.province === undefined ? "" : norm(place.province);
  const rules: Exclusions[] = [];
  for (const entry of calendars) {
    if (norm(entry.country) !== country) continue;
    rules.push(exclusions(entry.recurringNonDeliveryWeekdays, entry.nonDeliveryDays));
    for (const p of entry.nonDeliveryDaysPerProvince) {
      if (province !== "" && norm(p.province) === province)
        rules.push(exclusions(p.recurringNonDeliveryWeekdays, p.nonDeliveryDays));
    }
  }
  return (day) => !rules.some((e) => excludes(e, day));
}

/** The first working day from `from` on (inclusive), looking at MAX_SEARCH_DAYS days at most. */
function firstWorkingDay(from: Day, isWorkingDay: (day: Day) => boolean): Day | undefined {
  for (let day = from; day < from + MAX_SEARCH_DAYS; day++) if (isWorkingDay(day)) return day;
  return undefined;
}

/** Rule 4: the handover day if it counts as a transit day, else the next source working day. */
function shippingDay(
  handover: LocalHandover,
  cutoff: number | undefined,
  atSource: (day: Day) => boolean,
): Day | undefined {
  const beforeCutoff = cutoff === undefined || handover.minuteOfDay < cutoff;
  if (beforeCutoff && atSource(handover.day)) return handover.day;
  return firstWorkingDay(handover.day + 1, atSource);
}

/** Rule 5: `transitDays` steps to the next destination working day (0: the shipping day, if working). */
function deliveryDay(
  shipping: Day,
  transitDays: number,
  atDestination: (day: Day) => boolean,
): Day | undefined {
  if (transitDays === 0) return firstWorkingDay(shipping, atDestination);
  // Each step advances at least one day: more steps than that would end beyond the horizon.
  if (transitDays > MAX_SEARCH_DAYS) return undefined;
  let day: Day | undefined = shipping;
  for (let step = 0; step < transitDays && day !== undefined; step++)
    day = firstWorkingDay(day + 1, atDestination);
  return day;
}

/** A configured transit time as whole days: fractions are cut off, negatives and NaN count as 0. */
const wholeDays = (n: number): number => (n > 0 ? Math.floor(n) : 0);

/**
 * The earliest and latest delivery date of a parcel handed over at `handoverAt` (rules 1-7 above).
 * Throws a RangeError for an unknown `timeZone` or an invalid `handoverAt`; everything else is an
 * answer: an estimate, `no-mapping` or `no-delivery-day`.
 */
export function estimateDeliveryDates(input: EstimateInput): EstimateResult {
  if (!checkTimeZone(input.timeZone))
    throw new RangeError(`${JSON.stringify(input.timeZone)} is not an IANA time zone such as Europe/Berlin.`);
  const handover = localHandover(input.handoverAt, input.timeZone);
  const mapping = chooseMapping(input.mappings, input.source, input.destination);
  if (!mapping) return { kind: "no-mapping" };

  const atSource = workingDays(input.source, input.nonDeliveryDays);
  const atDestination = workingDays(input.destination, input.nonDeliveryDays);
  const minTransitDays = wholeDays(mapping.transitTime.minTransitDays);
  const maxTransitDays = wholeDays(mapping.transitTime.maxTransitDays);

  const shipping = shippingDay(handover, parseCutoff(mapping.countAsTransitDayBefore), atSource);
  if (shipping === undefined) return { kind: "no-delivery-day" };
  const earliest = deliveryDay(shipping, minTransitDays, atDestination);
  const latest = deliveryDay(shipping, maxTransitDays, atDestination);
  if (earliest === undefined || latest === undefined) return { kind: "no-delivery-day" };

  return {
    kind: "estimate",
    mappingId: mapping.id,
    shippingDate: isoDate(shipping),
    earliestDeliveryDate: isoDate(earliest),
    latestDeliveryDate: isoDate(latest),
    deliveryDate: isoDate(input.strategy === "LATEST" ? latest : earliest),
    minTransitDays,
    maxTransitDays,
  };
}
