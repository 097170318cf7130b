/**
 * Country service mappings: which carrier product serves which route, at what cost and in how many
 * days. They live inside their carrier configuration and have no version of their own: every
 * write names the configuration's version (`carrierConfigurationVersion`) and moves it.
 * Pure functions; no I/O.
 */
import { invalid, notFound } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import type {
  CarrierConfiguration,
  ChangeContext,
  CountryServiceMapping,
  JsonObject,
  RegionInformation,
} from "./types.ts";

/** The reference's limit on a configuration's mappings. */
export const MAX_MAPPINGS = 100;

/** Fields of CarrierCountryServiceMappingForCreation / ForUpdate besides the version. */
const INPUT_FIELDS = [
  "additionalShippingArticleAttributes",
  "additionalShippingAttributes",
  "carrierProductCategory",
  "countAsTransitDayBefore",
  "deliveryCosts",
  "destinations",
  "mandatoryShippingArticleAttributes",
  "mandatoryShippingAttributes",
  "mandatoryShippingItemAttributes",
  "products",
  "source",
  "transitTime",
] as const;
/** Fields only the read schema has (a full configuration PUT may carry them). */
const READ_ONLY_FIELDS = ["carrierServices", "staticCCSMRef"] as const;

/** HH:MM, 00:00 to 23:59. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function checkRegion(value: unknown, field: string): RegionInformation {
  if (!isObject(value) || typeof value.countryCode !== "string" || value.countryCode.length !== 2) {
    throw invalid("INVALID_REGION", `${field} must be a region with a two-letter countryCode.`, field);
  }
  return value as unknown as RegionInformation;
}

/**
 * The deprecated fields mapped onto their successors, used only when the successor is not given:
 * `sourceCountry` becomes `source`, `destinationCountries` become country-wide `destinations`. The
 * read model shows both old fields derived from the new ones, so a client that reads a mapping,
 * changes `destinations` and sends it all back gets its change (the stale old field is ignored).
 */
function mapDeprecated(out: CountryServiceMapping, input: JsonObject): void {
  if (typeof input.sourceCountry === "string" && (input.source === undefined || input.source === null)) {
    out.source = { countryCode: input.sourceCountry };
  }
  if (
    Array.isArray(input.destinationCountries) &&
    (input.destinations === undefined || input.destinations === null)
  ) {
    const codes = input.destinationCountries.filter((c): c is string => typeof c === "string");
    out.destinations = [...new Set(codes)].map((countryCode) => ({ countryCode }));
  }
}

/** Additional attributes that repeat a mandatory one (same referencedField) are dropped. */
function dropRepeatedAdditional(m: CountryServiceMapping): void {
  for (const [additional, mandatory] of [
    ["additionalShippingAttributes", "mandatoryShippingAttributes"],
    ["additionalShippingArticleAttributes", "mandatoryShippingArticleAttributes"],
  ] as const) {
    const list = m[additional];
    if (!Array.isArray(list)) continue;
    const taken = new Set(
      ((m[mandatory] as JsonObject[] | undefined) ?? []).map((a) => a.referencedField).filter(Boolean),
    );
    (m as Record<string, unknown>)[additional] = list.filter(
      (a) => !taken.has((a as JsonObject).referencedField),
    );
  }
}

/** The rules a stored mapping keeps (field: JSON pointer of the mapping in the request). */
export function checkMapping(m: CountryServiceMapping, field = ""): void {
  checkRegion(m.source, `${field}/source`);
  if (!Array.isArray(m.destinations) || m.destinations.length === 0) {
    throw invalid(
      "DESTINATIONS_REQUIRED",
      "destinations must name at least one region.",
      `${field}/destinations`,
    );
  }
  m.destinations.forEach((d, i) => {
    checkRegion(d, `${field}/destinations/${i}`);
  });
  const cutoff = m.countAsTransitDayBefore;
  if (cutoff !== undefined && (typeof cutoff !== "string" || !TIME_OF_DAY.test(cutoff))) {
    throw invalid(
      "INVALID_TIME_OF_DAY",
      "countAsTransitDayBefore must be a time of day HH:MM between 00:00 and 23:59.",
      `${field}/countAsTransitDayBefore`,
    );
  }
  const t = m.transitTime;
  if (t !== undefined) {
    const whole = (n: unknown) => typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 365;
    if (!isObject(t) || !whole(t.minTransitDays) || !whole(t.maxTransitDays)) {
      throw invalid(
        "INVALID_TRANSIT_TIME",
        "transitTime needs minTransitDays and maxTransitDays, whole numbers from 0 to 365.",
        `${field}/transitTime`,
      );
    }
    if (t.minTransitDays > t.maxTransitDays) {
      throw invalid(
        "INVALID_TRANSIT_TIME",
        "transitTime.minTransitDays must not exceed maxTransitDays.",
        `${field}/transitTime`,
      );
    }
  }
  if (Array.isArray(m.deliveryCosts) && m.deliveryCosts.length > 1) {
    throw invalid("INVALID_VALUE", "deliveryCosts holds at most one cost.", `${field}/deliveryCosts`);
  }
}

/** `base` with the input's fields (null: removed), deprecated fields mapped, checked, derived fields set. */
export function buildMapping(
  base: Partial<CountryServiceMapping>,
  input: JsonObject,
  id: string,
  opts: { readOnlyFields?: boolean; field?: string } = {},
): CountryServiceMapping {
  const out = { ...base, id } as CountryServiceMapping;
  const fields = opts.readOnlyFields ? [...INPUT_FIELDS, ...READ_ONLY_FIELDS] : INPUT_FIELDS;
  const target = out as Record<string, unknown>;
  for (const f of fields) {
    const value = input[f];
    if (value === undefined || (value === null && (f === "source" || f === "destinations"))) continue;
    if (value === null) delete target[f];
    else target[f] = value;
  }
  mapDeprecated(out, input);
  dropRepeatedAdditional(out);
  checkMapping(out, opts.field);
  out.sourceCountry = out.source.countryCode;
  out.destinationCountries = [...new Set(out.destinations.map((d) => d.countryCode))];
  return out;
}

const touched = (config: CarrierConfiguration, mappings: CountryServiceMapping[], c: ChangeContext) => ({
  ...config,
  countryServiceMappings: mappings,
  version: config.version + 1,
  lastModified: c.now.toISOString(),
});

function requireMapping(config: CarrierConfiguration, id: string): number {
  const i = config.countryServiceMappings.findIndex((m) => m.id === id);
  if (i < 0) throw notFound("country service mapping", id);
  return i;
}

export const findMapping = (config: CarrierConfiguration, id: string): CountryServiceMapping =>
  config.countryServiceMappings[requireMapping(config, id)] as CountryServiceMapping;

const checkConfigurationVersion = (config: CarrierConfiguration, body: JsonObject) =>
  requireCurrentVersion(
    "carrier configuration",
    config,
    body.carrierConfigurationVersion,
    "/carrierConfigurationVersion",
  );

/** POST .../countryservicemappings: appended, the configuration's version moves. */
export function addMapping(config: CarrierConfiguration, body: JsonObject, c: ChangeContext) {
  checkConfigurationVersion(config, body);
  if (config.countryServiceMappings.length >= MAX_MAPPINGS) {
    throw invalid(
      "TOO_MANY_MAPPINGS",
      `A carrier configuration holds at most ${MAX_MAPPINGS} country service mappings.`,
      "/countryServiceMappings",
    );
  }
  const mapping = buildMapping({}, body, c.newId());
  return { config: touched(config, [...config.countryServiceMappings, mapping], c), mapping };
}

/** PATCH .../countryservicemappings/{id}: the fields the body gives replace the stored ones. */
export function updateMapping(config: CarrierConfiguration, id: string, body: JsonObject, c: ChangeContext) {
  const i = requireMapping(config, id);
  checkConfigurationVersion(config, body);
  const mappings = [...config.countryServiceMappings];
  const mapping = buildMapping(mappings[i] as CountryServiceMapping, body, id);
  mappings[i] = mapping;
  return { config: touched(config, mappings, c), mapping };
}

/** DELETE .../countryservicemappings/{id} (the reference's DELETE names no version). */
export function removeMapping(config: CarrierConfiguration, id: string, c: ChangeContext) {
  const i = requireMapping(config, id);
  const mapping = config.countryServiceMappings[i] as CountryServiceMapping;
  const mappings = config.countryServiceMappings.filter((_, j) => j !== i);
  return { config: touched(config, mappings, c), mapping };
}
