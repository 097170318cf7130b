import { WEEKDAYS } from "@fop/contracts/carriers";
import { describe, expect, it } from "vitest";
import {
  checkTimeZone,
  type EstimateInput,
  type EstimateResult,
  estimateDeliveryDates,
  type MappingForEstimate,
  type NonDeliveryDaysPerCountryAndProvince,
  type Place,
  type Weekday,
} from "./delivery-date.ts";

// Calendar of the cases (checked with `date -d`): 2026-11-17 Tue, 11-18 Wed, 11-23 Mon, 11-25 Wed,
// 11-27 Fri, 11-28 Sat, 11-30 Mon; 12-07 Mon, 12-08 Tue, 12-23 Wed, 12-25 Fri, 12-28 Mon, 12-31 Thu;
// 2027-01-01 Fri, 01-04 Mon, 01-06 Wed. DST in Europe/Berlin: 2026-03-29 and 2026-10-25 (Sundays).
// In November Berlin is UTC+1 and Auckland UTC+13.

const WEEKEND: Weekday[] = ["SATURDAY", "SUNDAY"];
const ALL_WEEK: Weekday[] = [...WEEKDAYS];

const CALENDARS: NonDeliveryDaysPerCountryAndProvince[] = [
  {
    country: "DE",
    recurringNonDeliveryWeekdays: WEEKEND,
    nonDeliveryDays: [
      { nonDeliveryDay: "2019-12-25", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2019-12-26", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2020-01-01T00:00:00.000Z", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2026-12-24", nonDeliveryType: "SINGLE" },
      { nonDeliveryDay: "2025-11-26", nonDeliveryType: "SINGLE" }, // a Thursday in 2026: must not recur
    ],
    nonDeliveryDaysPerProvince: [
      {
        province: "SN",
        recurringNonDeliveryWeekdays: [],
        nonDeliveryDays: [{ nonDeliveryDay: "2026-11-18", nonDeliveryType: "SINGLE" }],
      },
      {
        province: "BY",
        recurringNonDeliveryWeekdays: [],
        nonDeliveryDays: [{ nonDeliveryDay: "2020-01-06", nonDeliveryType: "RECURRING" }],
      },
    ],
  },
  {
    country: "at", // Saturday is a delivery day in Austria
    recurringNonDeliveryWeekdays: ["SUNDAY"],
    nonDeliveryDays: [
      { nonDeliveryDay: "2019-12-25", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2019-12-26", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2020-01-01", nonDeliveryType: "RECURRING" },
      { nonDeliveryDay: "2026-12-08", nonDeliveryType: "SINGLE" },
    ],
    nonDeliveryDaysPerProvince: [],
  },
  {
    country: "CH",
    recurringNonDeliveryWeekdays: WEEKEND,
    nonDeliveryDays: [{ nonDeliveryDay: "2025-11-27" }], // no type = SINGLE: 2026-11-27 is a delivery day
    nonDeliveryDaysPerProvince: [],
  },
  {
    country: "NL",
    recurringNonDeliveryWeekdays: WEEKEND,
    nonDeliveryDays: [],
    nonDeliveryDaysPerProvince: [],
  },
  {
    country: "NZ",
    recurringNonDeliveryWeekdays: WEEKEND,
    nonDeliveryDays: [{ nonDeliveryDay: "2026-12-25" }, { nonDeliveryDay: "2026-12-28" }],
    nonDeliveryDaysPerProvince: [],
  },
  {
    country: "XX",
    recurringNonDeliveryWeekdays: ALL_WEEK,
    nonDeliveryDays: [],
    nonDeliveryDaysPerProvince: [],
  },
  // FR has no entry: every day is a delivery day there.
];

const region = (countryCode: string, ...postalCodes: string[]) =>
  postalCodes.length ? { countryCode, postalCodes } : { countryCode };
const mapping = (
  id: string,
  source: ReturnType<typeof region>,
  destination: ReturnType<typeof region>,
  transit: [number, number] | undefined,
  countAsTransitDayBefore?: string,
): MappingForEstimate => ({
  id,
  source,
  destinations: [destination],
  ...(transit ? { transitTime: { minTransitDays: transit[0], maxTransitDays: transit[1] } } : {}),
  ...(countAsTransitDayBefore ? { countAsTransitDayBefore } : {}),
});

const MAPPINGS: MappingForEstimate[] = [
  mapping("de-ch-zurich-no-transit", region("DE"), region("CH", "8"), undefined, "14:00"),
  mapping("de-de", region("DE"), region("DE"), [1, 2], "14:00"),
  mapping("de-at", region("DE"), region("AT"), [1, 3], "14:00"),
  mapping("de-munich-at", region("DE", "80"), region("AT"), [2, 4], "14:00"),
  mapping("de-at-vienna", region("DE"), region("AT", "10", "11"), [1, 1], "14:00"),
  mapping("de-ch", region("DE"), region("CH"), [2, 2], "23:00"),
  mapping("de-nl-first", region("DE"), region("NL"), [1, 1]),
  mapping("de-nl-second", region("DE"), region("NL"), [3, 3]),
  mapping("de-fr", region("DE"), region("FR"), [0, 2], "14:00"),
  mapping("de-xx", region("DE"), region("XX"), [1, 1]),
  mapping("xx-de", region("XX"), region("DE"), [1, 1]),
  mapping("at-de", region("AT"), region("DE"), [0, 1], "14:00"),
  mapping("ch-zurich-de", region("CH", "8"), region("DE"), [1, 1]),
  mapping("nz-nz", region("nz"), region("NZ"), [1, 2], "15:00"),
];

const DE: Place = { countryCode: "DE" };
const AT: Place = { countryCode: "AT" };

interface Case {
  name: string;
  /** handoverAt as an ISO instant. */
  at: string;
  /** Default Europe/Berlin. */
  tz?: string;
  /** Default DE without postal code or province. */
  from?: Place;
  to: Place;
  /** Default EARLIEST. */
  strategy?: EstimateInput["strategy"];
  /** Default MAPPINGS. */
  mappings?: MappingForEstimate[];
  want:
    | { mapping: string; ship: string; earliest: string; latest: string; delivery: string }
    | "no-mapping"
    | "no-delivery-day";
}

const CASES: Case[] = [
  // Cutoff (14:00 Berlin) and weekends
  {
    name: "Wed before cutoff: handover day counts (a SINGLE day of 2025 does not recur on Thu 11-26)",
    at: "2026-11-25T09:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-27",
      delivery: "2026-11-26",
    },
  },
  {
    name: "Wed after cutoff: ships Thu, latest skips the weekend",
    at: "2026-11-25T14:30:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-26",
      earliest: "2026-11-27",
      latest: "2026-11-30",
      delivery: "2026-11-27",
    },
  },
  {
    name: "handover exactly at the cutoff does not count",
    at: "2026-11-25T13:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-26",
      earliest: "2026-11-27",
      latest: "2026-11-30",
      delivery: "2026-11-27",
    },
  },
  {
    name: "13:59:59 is still before the cutoff",
    at: "2026-11-25T12:59:59Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-27",
      delivery: "2026-11-26",
    },
  },
  {
    name: "no cutoff: a 23:00 handover counts (first of two equal mappings)",
    at: "2026-11-25T22:00:00Z",
    to: { countryCode: "NL" },
    want: {
      mapping: "de-nl-first",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-26",
      delivery: "2026-11-26",
    },
  },
  {
    name: "Fri before cutoff: delivery skips the weekend",
    at: "2026-11-27T09:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-27",
      earliest: "2026-11-30",
      latest: "2026-12-01",
      delivery: "2026-11-30",
    },
  },
  {
    name: "Fri after cutoff ships Mon",
    at: "2026-11-27T15:00:00Z",
    to: DE,
    strategy: "LATEST",
    want: {
      mapping: "de-de",
      ship: "2026-11-30",
      earliest: "2026-12-01",
      latest: "2026-12-02",
      delivery: "2026-12-02",
    },
  },
  {
    name: "Sat before cutoff: not a source working day, ships Mon",
    at: "2026-11-28T09:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-30",
      earliest: "2026-12-01",
      latest: "2026-12-02",
      delivery: "2026-12-01",
    },
  },
  // Saturday delivery in AT (only Sunday is off there), EARLIEST vs LATEST
  {
    name: "to AT, EARLIEST: Saturday is a delivery day",
    at: "2026-11-27T09:00:00Z",
    to: AT,
    want: {
      mapping: "de-at",
      ship: "2026-11-27",
      earliest: "2026-11-28",
      latest: "2026-12-01",
      delivery: "2026-11-28",
    },
  },
  {
    name: "to AT, LATEST: three days over Sat and Sun end on Tue",
    at: "2026-11-27T09:00:00Z",
    to: AT,
    strategy: "LATEST",
    want: {
      mapping: "de-at",
      ship: "2026-11-27",
      earliest: "2026-11-28",
      latest: "2026-12-01",
      delivery: "2026-12-01",
    },
  },
  // Single holidays per country
  {
    name: "AT single holiday 12-08 is skipped at the destination",
    at: "2026-12-07T09:00:00Z",
    to: AT,
    want: {
      mapping: "de-at",
      ship: "2026-12-07",
      earliest: "2026-12-09",
      latest: "2026-12-11",
      delivery: "2026-12-09",
    },
  },
  {
    name: "AT's holiday is no holiday in DE",
    at: "2026-12-07T09:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-12-07",
      earliest: "2026-12-08",
      latest: "2026-12-09",
      delivery: "2026-12-08",
    },
  },
  {
    name: "AT single holiday at the source: handover day does not count; 0 days to DE",
    at: "2026-12-08T09:00:00Z",
    tz: "Europe/Vienna",
    from: AT,
    to: DE,
    want: {
      mapping: "at-de",
      ship: "2026-12-09",
      earliest: "2026-12-09",
      latest: "2026-12-10",
      delivery: "2026-12-09",
    },
  },
  // Holidays per province (SN: 2026-11-18)
  {
    name: "destination province SN: its holiday is skipped",
    at: "2026-11-17T09:00:00Z",
    to: { countryCode: "DE", province: "SN" },
    want: {
      mapping: "de-de",
      ship: "2026-11-17",
      earliest: "2026-11-19",
      latest: "2026-11-20",
      delivery: "2026-11-19",
    },
  },
  {
    name: "destination province BY: SN's holiday does not apply",
    at: "2026-11-17T09:00:00Z",
    to: { countryCode: "DE", province: "BY" },
    want: {
      mapping: "de-de",
      ship: "2026-11-17",
      earliest: "2026-11-18",
      latest: "2026-11-19",
      delivery: "2026-11-18",
    },
  },
  {
    name: "no province given: no province holiday applies",
    at: "2026-11-17T09:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-17",
      earliest: "2026-11-18",
      latest: "2026-11-19",
      delivery: "2026-11-18",
    },
  },
  {
    name: "country and province compare case-insensitively (de / sn)",
    at: "2026-11-17T09:00:00Z",
    from: { countryCode: "de" },
    to: { countryCode: "de", province: " sn" },
    want: {
      mapping: "de-de",
      ship: "2026-11-17",
      earliest: "2026-11-19",
      latest: "2026-11-20",
      delivery: "2026-11-19",
    },
  },
  {
    name: "source province SN: the handover day on its holiday does not count",
    at: "2026-11-18T09:00:00Z",
    from: { countryCode: "DE", province: "SN" },
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-11-19",
      earliest: "2026-11-20",
      latest: "2026-11-23",
      delivery: "2026-11-20",
    },
  },
  // RECURRING holidays and the year end
  {
    name: "RECURRING 12-25 and 12-26 given for 2019 apply in 2026 (AT, Saturday otherwise open)",
    at: "2026-12-23T09:00:00Z",
    to: AT,
    strategy: "LATEST",
    want: {
      mapping: "de-at",
      ship: "2026-12-23",
      earliest: "2026-12-24",
      latest: "2026-12-29",
      delivery: "2026-12-29",
    },
  },
  {
    name: "DE: SINGLE 12-24, RECURRING 12-25/26 and the weekend",
    at: "2026-12-23T09:00:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-12-23",
      earliest: "2026-12-28",
      latest: "2026-12-29",
      delivery: "2026-12-28",
    },
  },
  {
    name: "Dec 30 to January: Jan 1 RECURRING given as a date-time",
    at: "2026-12-30T09:00:00Z",
    to: DE,
    strategy: "LATEST",
    want: {
      mapping: "de-de",
      ship: "2026-12-30",
      earliest: "2026-12-31",
      latest: "2027-01-04",
      delivery: "2027-01-04",
    },
  },
  {
    name: "Dec 31 after cutoff: ships after New Year and the weekend",
    at: "2026-12-31T15:00:00Z",
    to: DE,
    strategy: "LATEST",
    want: {
      mapping: "de-de",
      ship: "2027-01-04",
      earliest: "2027-01-05",
      latest: "2027-01-06",
      delivery: "2027-01-06",
    },
  },
  {
    name: "Dec 31 after cutoff to province BY: RECURRING 01-06 of the province",
    at: "2026-12-31T15:00:00Z",
    to: { countryCode: "DE", province: "BY" },
    strategy: "LATEST",
    want: {
      mapping: "de-de",
      ship: "2027-01-04",
      earliest: "2027-01-05",
      latest: "2027-01-07",
      delivery: "2027-01-07",
    },
  },
  {
    name: "Dec 31 to AT: Jan 1 off, Sat Jan 2 open",
    at: "2026-12-31T09:00:00Z",
    to: AT,
    want: {
      mapping: "de-at",
      ship: "2026-12-31",
      earliest: "2027-01-02",
      latest: "2027-01-05",
      delivery: "2027-01-02",
    },
  },
  // Time zones (de-ch: cutoff 23:00, 2 days)
  {
    name: "Mon 22:30 UTC is Mon 23:30 in Berlin: after the 23:00 cutoff",
    at: "2026-11-23T22:30:00Z",
    to: { countryCode: "CH" },
    want: {
      mapping: "de-ch",
      ship: "2026-11-24",
      earliest: "2026-11-26",
      latest: "2026-11-26",
      delivery: "2026-11-26",
    },
  },
  {
    name: "the same instant taken in UTC is before the cutoff",
    at: "2026-11-23T22:30:00Z",
    tz: "UTC",
    to: { countryCode: "CH" },
    want: {
      mapping: "de-ch",
      ship: "2026-11-23",
      earliest: "2026-11-25",
      latest: "2026-11-25",
      delivery: "2026-11-25",
    },
  },
  {
    name: "Pacific/Auckland: Tue 20:00 UTC is Wed 09:00 local (mapping country 'nz')",
    at: "2026-11-24T20:00:00Z",
    tz: "Pacific/Auckland",
    from: { countryCode: "NZ" },
    to: { countryCode: "NZ" },
    want: {
      mapping: "nz-nz",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-27",
      delivery: "2026-11-26",
    },
  },
  {
    name: "Pacific/Auckland: Thu Dec 24 15:30 local, after cutoff, ships after Christmas and Boxing Day (observed)",
    at: "2026-12-24T02:30:00Z",
    tz: "Pacific/Auckland",
    from: { countryCode: "NZ" },
    to: { countryCode: "NZ" },
    want: {
      mapping: "nz-nz",
      ship: "2026-12-29",
      earliest: "2026-12-30",
      latest: "2026-12-31",
      delivery: "2026-12-30",
    },
  },
  // DST in Europe/Berlin
  {
    name: "Fri before the spring DST Sunday (13:30 CET): counts, delivery steps over 03-29",
    at: "2026-03-27T12:30:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-03-27",
      earliest: "2026-03-30",
      latest: "2026-03-31",
      delivery: "2026-03-30",
    },
  },
  {
    name: "Mon after spring DST: 12:30 UTC is 14:30 CEST, after the cutoff",
    at: "2026-03-30T12:30:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-03-31",
      earliest: "2026-04-01",
      latest: "2026-04-02",
      delivery: "2026-04-01",
    },
  },
  {
    name: "Fri before the autumn DST Sunday (13:30 CEST): counts, delivery steps over 10-25",
    at: "2026-10-23T11:30:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-10-23",
      earliest: "2026-10-26",
      latest: "2026-10-27",
      delivery: "2026-10-26",
    },
  },
  {
    name: "Mon after autumn DST: 13:30 UTC is 14:30 CET, after the cutoff",
    at: "2026-10-26T13:30:00Z",
    to: DE,
    want: {
      mapping: "de-de",
      ship: "2026-10-27",
      earliest: "2026-10-28",
      latest: "2026-10-29",
      delivery: "2026-10-28",
    },
  },
  // Zero transit days
  {
    name: "min 0 to FR (no calendar entry: every day delivers), LATEST over the weekend",
    at: "2026-11-27T09:00:00Z",
    to: { countryCode: "FR" },
    strategy: "LATEST",
    want: {
      mapping: "de-fr",
      ship: "2026-11-27",
      earliest: "2026-11-27",
      latest: "2026-11-29",
      delivery: "2026-11-29",
    },
  },
  {
    name: "min 0 when the shipping day is no destination working day: AT Sat -> DE Mon",
    at: "2026-11-28T09:00:00Z",
    tz: "Europe/Vienna",
    from: AT,
    to: DE,
    want: {
      mapping: "at-de",
      ship: "2026-11-28",
      earliest: "2026-11-30",
      latest: "2026-11-30",
      delivery: "2026-11-30",
    },
  },
  // Mapping choice
  {
    name: "destination postal code with a listed prefix: the Vienna mapping",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "AT", postalCode: "1010" },
    want: {
      mapping: "de-at-vienna",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-26",
      delivery: "2026-11-26",
    },
  },
  {
    name: "destination postal code equal to a listed code",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "AT", postalCode: "11" },
    want: {
      mapping: "de-at-vienna",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-26",
      delivery: "2026-11-26",
    },
  },
  {
    name: "destination postal code without a listed prefix: country-wide mapping",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "AT", postalCode: "5020" },
    want: {
      mapping: "de-at",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-28",
      delivery: "2026-11-26",
    },
  },
  {
    name: "destination without postal code: only country-wide regions match",
    at: "2026-11-25T09:00:00Z",
    from: { countryCode: "DE", postalCode: "10115" },
    to: AT,
    want: {
      mapping: "de-at",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-28",
      delivery: "2026-11-26",
    },
  },
  {
    name: "source postal code prefix beats a country-wide source",
    at: "2026-11-25T09:00:00Z",
    from: { countryCode: "DE", postalCode: "80331" },
    to: { countryCode: "AT", postalCode: "5020" },
    want: {
      mapping: "de-munich-at",
      ship: "2026-11-25",
      earliest: "2026-11-27",
      latest: "2026-11-30",
      delivery: "2026-11-27",
    },
  },
  {
    name: "a destination postal match beats a source postal match",
    at: "2026-11-25T09:00:00Z",
    from: { countryCode: "DE", postalCode: "80331" },
    to: { countryCode: "AT", postalCode: "1010" },
    want: {
      mapping: "de-at-vienna",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-26",
      delivery: "2026-11-26",
    },
  },
  {
    name: "equally specific mappings: the first in stored order",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "NL" },
    mappings: [...MAPPINGS].reverse(),
    want: {
      mapping: "de-nl-second",
      ship: "2026-11-25",
      earliest: "2026-11-30",
      latest: "2026-11-30",
      delivery: "2026-11-30",
    },
  },
  {
    name: "a more specific mapping without transitTime is skipped (type-less CH day 2025-11-27 is SINGLE)",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "CH", postalCode: "8001" },
    want: {
      mapping: "de-ch",
      ship: "2026-11-25",
      earliest: "2026-11-27",
      latest: "2026-11-27",
      delivery: "2026-11-27",
    },
  },
  {
    name: "source postal code matching a source-only mapping",
    at: "2026-11-25T09:00:00Z",
    tz: "Europe/Zurich",
    from: { countryCode: "CH", postalCode: "8001" },
    to: DE,
    want: {
      mapping: "ch-zurich-de",
      ship: "2026-11-25",
      earliest: "2026-11-26",
      latest: "2026-11-26",
      delivery: "2026-11-26",
    },
  },
  {
    name: "source without postal code does not match a postal-code source",
    at: "2026-11-25T09:00:00Z",
    tz: "Europe/Zurich",
    from: { countryCode: "CH" },
    to: DE,
    want: "no-mapping",
  },
  {
    name: "no mapping for the destination country",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "US" },
    want: "no-mapping",
  },
  {
    name: "only mappings without transitTime",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "CH", postalCode: "8001" },
    mappings: [MAPPINGS[0]!],
    want: "no-mapping",
  },
  // No delivery day within the horizon
  {
    name: "all seven weekdays off at the destination",
    at: "2026-11-25T09:00:00Z",
    to: { countryCode: "XX" },
    want: "no-delivery-day",
  },
  {
    name: "all seven weekdays off at the source: nothing ever ships",
    at: "2026-11-25T09:00:00Z",
    from: { countryCode: "XX" },
    to: DE,
    want: "no-delivery-day",
  },
];

function expected(want: Case["want"]): EstimateResult | Record<string, unknown> {
  if (typeof want === "string") return { kind: want };
  return {
    kind: "estimate",
    mappingId: want.mapping,
    shippingDate: want.ship,
    earliestDeliveryDate: want.earliest,
    latestDeliveryDate: want.latest,
    deliveryDate: want.delivery,
    minTransitDays: expect.any(Number),
    maxTransitDays: expect.any(Number),
  };
}

const input = (over: Partial<EstimateInput> = {}): EstimateInput => ({
  handoverAt: new Date("2026-11-25T09:00:00Z"),
  timeZone: "Europe/Berlin",
  source: DE,
  destination: DE,
  mappings: MAPPINGS,
  nonDeliveryDays: CALENDARS,
  strategy: "EARLIEST",
  ...over,
});

describe("estimateDeliveryDates", () => {
  it.each(CASES)("$name", (c) => {
    const result = estimateDeliveryDates(
      input({
        handoverAt: new Date(c.at),
        ...(c.tz ? { timeZone: c.tz } : {}),
        ...(c.from ? { source: c.from } : {}),
        destination: c.to,
        ...(c.mappings ? { mappings: c.mappings } : {}),
        ...(c.strategy ? { strategy: c.strategy } : {}),
      }),
    );
    expect(result).toEqual(expected(c.want));
  });

  it("reports the chosen mapping's transit days", () => {
    expect(
      estimateDeliveryDates(input({ destination: { countryCode: "AT", postalCode: "5020" } })),
    ).toMatchObject({
      mappingId: "de-at",
      minTransitDays: 1,
      maxTransitDays: 3,
    });
  });

  it("ignores a nonDeliveryDay that is no date", () => {
    const calendars = [
      { ...CALENDARS[0]!, nonDeliveryDays: [{ nonDeliveryDay: "2026-02-30" }, { nonDeliveryDay: "soon" }] },
    ];
    expect(estimateDeliveryDates(input({ nonDeliveryDays: calendars }))).toMatchObject({
      earliestDeliveryDate: "2026-11-26",
    });
  });

  it.each(["Mars/Base", "", "Europe/Berlinn"])("throws a RangeError for the time zone %j", (timeZone) => {
    expect(() => estimateDeliveryDates(input({ timeZone }))).toThrow(RangeError);
  });

  it("throws a RangeError for an invalid handover instant", () => {
    expect(() => estimateDeliveryDates(input({ handoverAt: new Date("nope") }))).toThrow(RangeError);
  });
});

describe("checkTimeZone", () => {
  it.each([
    ["Europe/Berlin", true],
    ["Pacific/Auckland", true],
    ["UTC", true],
    ["Mars/Base", false],
    ["", false],
  ])("%j -> %s", (tz, ok) => {
    expect(checkTimeZone(tz)).toBe(ok);
  });
});
