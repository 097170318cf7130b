/**
 * Carrier configurations: the default a carrier gets on its first read, and the full replacement
 * of PUT (generic or carrier-specific body; the variants' extra fields are kept). Pure functions.
 */
import { invalid } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import { buildMapping, MAX_MAPPINGS } from "./mapping.ts";
import type { CarrierConfiguration, ChangeContext, CountryServiceMapping, JsonObject } from "./types.ts";

/** Set by the service, never taken from a body. */
const SYSTEM_FIELDS = new Set(["id", "version", "created", "lastModified", "carrierRef"]);

/** What GET .../configuration creates when the carrier has none yet. */
export function defaultConfiguration(carrierRef: string, id: string, now: Date): CarrierConfiguration {
  const at = now.toISOString();
  return {
    id,
    version: 1,
    created: at,
    lastModified: at,
    carrierRef,
    returnLabel: false,
    mustBeWeighed: false,
    countryServiceMappings: [],
    nonDeliveryDaysPerCountryAndProvince: [],
  };
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A real calendar date YYYY-MM-DD (a date-time's date part is accepted), or undefined. */
export function calendarDate(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})(T.*)?$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return undefined;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Non-delivery days as stored: each day a real date, written YYYY-MM-DD. */
function normalizeNonDeliveryDays(list: unknown, field: string): JsonObject[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw invalid("INVALID_VALUE", `${field} must be a list.`, field);
  const days = (value: unknown, at: string) =>
    (Array.isArray(value) ? value : []).map((d, i) => {
      const date = calendarDate(isObject(d) ? d.nonDeliveryDay : undefined);
      if (!date) {
        throw invalid(
          "INVALID_DATE",
          "nonDeliveryDay must be a calendar date YYYY-MM-DD.",
          `${at}/${i}/nonDeliveryDay`,
        );
      }
      return {
        ...(d as JsonObject),
        nonDeliveryDay: date,
        nonDeliveryType: (d as JsonObject).nonDeliveryType ?? "SINGLE",
      };
    });
  return list.map((entry, i) => {
    const at = `${field}/${i}`;
    if (!isObject(entry)) throw invalid("INVALID_VALUE", `${at} must be an object.`, at);
    const provinces = Array.isArray(entry.nonDeliveryDaysPerProvince) ? entry.nonDeliveryDaysPerProvince : [];
    return {
      ...entry,
      nonDeliveryDays: days(entry.nonDeliveryDays, `${at}/nonDeliveryDays`),
      nonDeliveryDaysPerProvince: provinces.map((p, j) => ({
        ...(p as JsonObject),
        nonDeliveryDays: days(
          (p as JsonObject).nonDeliveryDays,
          `${at}/nonDeliveryDaysPerProvince/${j}/nonDeliveryDays`,
        ),
      })),
    };
  });
}

function checkPickUpTime(value: unknown): void {
  if (value === undefined || value === null) return;
  const minute = (t: unknown) => {
    const ts = t as JsonObject | undefined;
    const ok =
      isObject(ts) &&
      Number.isInteger(ts.hour) &&
      Number.isInteger(ts.minute) &&
      (ts.hour as number) >= 0 &&
      (ts.hour as number) <= 23 &&
      (ts.minute as number) >= 0 &&
      (ts.minute as number) <= 59;
    if (!ok) {
      throw invalid(
        "INVALID_TIME_OF_DAY",
        "defaultPickUpTime start and end need a whole hour 0-23 and minute 0-59.",
        "/defaultPickUpTime",
      );
    }
    return (ts.hour as number) * 60 + (ts.minute as number);
  };
  const p = value as JsonObject;
  if (minute(p.start) > minute(p.end)) {
    throw invalid(
      "INVALID_PICK_UP_TIME",
      "defaultPickUpTime must not end before it starts.",
      "/defaultPickUpTime",
    );
  }
}

function checkThreshold(value: unknown): void {
  if (!isObject(value) || !isObject(value.priceRange)) return;
  const { from, to } = value.priceRange;
  if (typeof from === "number" && typeof to === "number" && from > to) {
    throw invalid(
      "INVALID_PRICE_RANGE",
      "thresholdPriceValue.priceRange.from must not exceed to.",
      "/thresholdPriceValue/priceRange",
    );
  }
}

/**
 * PUT .../configuration: the body replaces every field (what it omits is gone) on the version it
 * names. `carrierRef` must be the carrier's. Mappings without an id get one; ids must be unique.
 */
export function replaceConfiguration(
  current: CarrierConfiguration,
  body: JsonObject,
  c: ChangeContext,
): CarrierConfiguration {
  requireCurrentVersion("carrier configuration", current, body.version);
  if (body.carrierRef !== undefined && body.carrierRef !== null && body.carrierRef !== current.carrierRef) {
    throw invalid(
      "CARRIER_REF_MISMATCH",
      `carrierRef must be ${JSON.stringify(current.carrierRef)}, the carrier the path names.`,
      "/carrierRef",
    );
  }
  if (typeof body.returnLabel !== "boolean") {
    throw invalid("RETURN_LABEL_REQUIRED", "returnLabel is required (true or false).", "/returnLabel");
  }
  const next: CarrierConfiguration = {
    id: current.id,
    version: current.version + 1,
    created: current.created,
    lastModified: c.now.toISOString(),
    carrierRef: current.carrierRef,
    returnLabel: body.returnLabel,
    mustBeWeighed: false,
    countryServiceMappings: [],
    nonDeliveryDaysPerCountryAndProvince: [],
  };
  for (const [k, v] of Object.entries(body)) if (!SYSTEM_FIELDS.has(k) && v !== null) next[k] = v;
  checkPickUpTime(next.defaultPickUpTime);
  checkThreshold(next.thresholdPriceValue);
  next.nonDeliveryDaysPerCountryAndProvince = normalizeNonDeliveryDays(
    body.nonDeliveryDaysPerCountryAndProvince,
    "/nonDeliveryDaysPerCountryAndProvince",
  );
  const given = body.countryServiceMappings;
  if (given !== undefined && given !== null && !Array.isArray(given)) {
    throw invalid("INVALID_VALUE", "countryServiceMappings must be a list.", "/countryServiceMappings");
  }
  const mappings = given ?? [];
  if (mappings.length > MAX_MAPPINGS) {
    throw invalid(
      "TOO_MANY_MAPPINGS",
      `A carrier configuration holds at most ${MAX_MAPPINGS} country service mappings.`,
      "/countryServiceMappings",
    );
  }
  const seen = new Set<string>();
  next.countryServiceMappings = mappings.map((raw, i): CountryServiceMapping => {
    const input = (isObject(raw) ? raw : {}) as JsonObject;
    const id = typeof input.id === "string" && input.id ? input.id : c.newId();
    if (seen.has(id)) {
      throw invalid(
        "DUPLICATE_MAPPING_ID",
        `Two country service mappings have the id ${JSON.stringify(id)}.`,
        `/countryServiceMappings/${i}/id`,
      );
    }
    seen.add(id);
    return buildMapping({}, input, id, { readOnlyFields: true, field: `/countryServiceMappings/${i}` });
  });
  return next;
}
