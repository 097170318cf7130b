/**
 * Facilities: the registry every other entity's facilityRef points into. Pure rules of creating and
 * modifying one.
 */

import {
  FACILITY_STATUSES,
  FACILITY_TYPES,
  type FacilityStatus,
  type FacilityType,
  LOCATION_TYPES,
  type LocationType,
} from "@fop/contracts/facilities";
import { invalid, versionConflict } from "@fop/kit/errors";
import type { JsonObject } from "@fop/kit/json";
import { checkCustomAttributes, checkVersion } from "@fop/kit/validation";
import { withResolvedTimeZone } from "./time-zone.ts";

export type { FacilityStatus, FacilityType, LocationType } from "@fop/contracts/facilities";

/** Address as the REST API shows it (companyName, street, houseNumber, postalCode, city, country, ...). */
export type FacilityAddress = JsonObject;

export interface Facility {
  id: string;
  version: number;
  created: Date;
  lastModified: Date;
  tenantFacilityId: string | null;
  name: string;
  type: FacilityType;
  status: FacilityStatus;
  locationType: LocationType | null;
  address: FacilityAddress | null;
  customAttributes: JsonObject | null;
  /** Further reference fields stored as given (contact, pickingTimes, closingDays, services, ...). */
  details: JsonObject;
}

export type FacilityInput = Omit<
  Facility,
  "id" | "version" | "created" | "lastModified" | "type" | "status"
> & {
  type?: FacilityType | undefined;
  status?: FacilityStatus | undefined;
};

/** Fields a modification may name. */
export const MODIFIABLE_FIELDS = [
  "tenantFacilityId",
  "name",
  "type",
  "status",
  "locationType",
  "address",
  "customAttributes",
] as const;
export type ModifiableField = (typeof MODIFIABLE_FIELDS)[number];

const TENANT_FACILITY_ID = /^[^\s:/?#]{1,256}$/;
const COUNTRY = /^[A-Z]{2}$/;

function requireText(address: JsonObject, key: string, type: string): void {
  const v = address[key];
  if (typeof v !== "string" || v.length === 0) {
    throw invalid("MISSING_ADDRESS_FIELD", `A ${type} needs address.${key}.`, `/address/${key}`);
  }
}

/** Invariants of a whole facility, checked after every create and change. */
export function validateFacility(f: Omit<Facility, "id" | "version" | "created" | "lastModified">): void {
  if (f.name.trim() === "") throw invalid("MISSING_NAME", "A facility needs a name.", "/name");
  if (f.tenantFacilityId !== null && !TENANT_FACILITY_ID.test(f.tenantFacilityId)) {
    throw invalid(
      "INVALID_IDENTIFIER",
      "tenantFacilityId must be 1 to 256 characters without whitespace, ':', '/', '?' or '#' (it is used in URNs).",
      "/tenantFacilityId",
    );
  }
  if (!FACILITY_TYPES.includes(f.type))
    throw invalid("INVALID_VALUE", `type must be one of ${FACILITY_TYPES.join(", ")}.`, "/type");
  if (!FACILITY_STATUSES.includes(f.status)) {
    throw invalid("INVALID_VALUE", `status must be one of ${FACILITY_STATUSES.join(", ")}.`, "/status");
  }
  if (f.locationType !== null && !LOCATION_TYPES.includes(f.locationType)) {
    throw invalid(
      "INVALID_VALUE",
      `locationType must be one of ${LOCATION_TYPES.join(", ")}.`,
      "/locationType",
    );
  }
  if (f.type === "MANAGED_FACILITY") {
    if (!f.address) throw invalid("MISSING_ADDRESS", "A managed facility needs an address.", "/address");
    for (const key of ["street", "city", "postalCode", "country", "companyName"])
      requireText(f.address, key, "managed facility");
  } else if (f.address) {
    for (const key of ["country", "companyName"]) requireText(f.address, key, "supplier");
  }
  const country = f.address?.country;
  if (country !== undefined && (typeof country !== "string" || !COUNTRY.test(country))) {
    throw invalid(
      "INVALID_VALUE",
      "address.country must be a two-letter ISO 3166-1 code such as DE.",
      "/address/country",
    );
  }
  checkCustomAttributes(f.customAttributes, "/customAttributes");
}

/** A client's fields with the defaults of a facility that names none: managed, online, a store. */
function withDefaults(input: FacilityInput): FacilityInput & { type: FacilityType; status: FacilityStatus } {
  const type = input.type ?? "MANAGED_FACILITY";
  return {
    ...input,
    type,
    status: input.status ?? "ONLINE",
    locationType: input.locationType ?? (type === "SUPPLIER" ? null : "STORE"),
  };
}

export function createFacility(input: FacilityInput, id: string, now: Date): Facility {
  const given = withDefaults(input);
  const f: Facility = {
    id,
    version: 1,
    created: now,
    lastModified: now,
    tenantFacilityId: given.tenantFacilityId,
    name: given.name,
    type: given.type,
    status: given.status,
    locationType: given.locationType,
    address: withResolvedTimeZone(given.address, now),
    customAttributes: given.customAttributes,
    details: given.details,
  };
  validateFacility(f);
  return f;
}

export interface FacilityChange {
  /** The fields to change; a named field missing from `values` is cleared (where it may be). */
  fields: readonly ModifiableField[];
  /** Keys of details to change; a named key missing from `values.details` is removed. */
  detailKeys: readonly string[];
  values: Partial<FacilityInput>;
}

/** Applies a versioned partial modification and re-checks the facility's invariants. */
export function modifyFacility(
  current: Facility,
  change: FacilityChange,
  requestVersion: number,
  now: Date,
): Facility {
  checkVersion(requestVersion);
  if (requestVersion !== current.version) throw versionConflict("facility", requestVersion, current.version);
  const next: Facility = { ...current, details: { ...current.details } };
  const v = change.values;
  for (const field of change.fields) {
    switch (field) {
      case "name":
        if (v.name === undefined) throw invalid("MISSING_NAME", "name cannot be removed.", "/name");
        next.name = v.name;
        break;
      case "type":
        if (v.type !== undefined) next.type = v.type;
        break;
      case "status":
        if (v.status !== undefined) next.status = v.status;
        break;
      case "tenantFacilityId":
        next.tenantFacilityId = v.tenantFacilityId ?? null;
        break;
      case "locationType":
        next.locationType = v.locationType ?? null;
        break;
      case "address":
        next.address = withResolvedTimeZone(v.address ?? null, now);
        break;
      case "customAttributes":
        next.customAttributes = v.customAttributes ?? null;
        break;
    }
  }
  for (const key of change.detailKeys) {
    const value = v.details?.[key];
    if (value === undefined || value === null) delete next.details[key];
    else next.details[key] = value;
  }
  validateFacility(next);
  next.version = current.version + 1;
  next.lastModified = now;
  return next;
}

/**
 * A versioned replacement (PUT): every field takes the input's value, one it leaves out is removed
 * (details included) or, for type, status and locationType, takes the creation default. It is the
 * modification that names every field, so it is checked by the same rules.
 */
export function replaceFacility(
  current: Facility,
  input: FacilityInput,
  requestVersion: number,
  now: Date,
): Facility {
  const values = withDefaults(input);
  const detailKeys = [...new Set([...Object.keys(current.details), ...Object.keys(values.details)])];
  return modifyFacility(current, { fields: MODIFIABLE_FIELDS, detailKeys, values }, requestVersion, now);
}
