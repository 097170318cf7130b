/**
 * Facility groups: the rules of creating, replacing (PATCH replaces every updatable field, as the
 * reference does) and the four actions that add or remove facilities, with or without a version.
 * Pure: whether the facilities exist and how many groups each is in already is the use case's
 * question (under the facilities' row locks); here are the group's own limits and its version.
 */

import { invalid } from "@fop/kit/errors";
import type { JsonObject } from "@fop/kit/json";
import {
  checkCustomAttributes,
  checkList,
  checkLocaleString,
  requireCurrentVersion,
} from "@fop/kit/validation";

export interface FacilityGroup {
  id: string;
  version: number;
  created: Date;
  lastModified: Date;
  tenantFacilityGroupId: string;
  nameLocalized: Record<string, string>;
  /** Unique, in the order they were added. */
  facilityRefs: string[];
  customAttributes: JsonObject | null;
}

/** FacilityGroupForCreation; FacilityGroupForUpdate gives any of these plus `version`. */
export interface FacilityGroupInput {
  tenantFacilityGroupId?: string | undefined;
  nameLocalized?: Record<string, string> | undefined;
  facilityRefs?: string[] | undefined;
  customAttributes?: JsonObject | null | undefined;
}

/** The reference's quotas (both configurable per installation). */
export interface GroupLimits {
  /** Facilities in one group (the reference's tenant quota, default 1000). */
  facilitiesPerGroup: number;
  /** Groups one facility may be in (default 20). */
  groupsPerFacility: number;
}
export const DEFAULT_GROUP_LIMITS: GroupLimits = { facilitiesPerGroup: 1000, groupsPerFacility: 20 };

/** Facilities one action adds or removes (the reference's 1 to 200). */
export const FACILITIES_PER_ACTION = 200;

/** Used in URNs (urn:fft:facilitygroup:tenantFacilityGroupId:<value>), like tenantFacilityId. */
export const TENANT_FACILITY_GROUP_ID = /^[^\s:/?#]{1,256}$/;

export type GroupAction =
  | { name: "ADD_FACILITIES_TO_GROUP"; facilitiesToAdd: string[]; version?: number | undefined }
  | { name: "VERSIONLESS_ADD_FACILITIES_TO_GROUP"; facilitiesToAdd: string[] }
  | { name: "REMOVE_FACILITIES_FROM_GROUP"; facilitiesToRemove: string[]; version: number | undefined }
  | { name: "VERSIONLESS_REMOVE_FACILITIES_FROM_GROUP"; facilitiesToRemove: string[] };

function checkRefs(refs: string[], field: string, max: number, min = 0): void {
  checkList(refs, max, field, min);
  const seen = new Set<string>();
  refs.forEach((ref, i) => {
    if (seen.has(ref)) {
      throw invalid("DUPLICATE_FACILITY", `${field.slice(1)}/${i}: ${ref} is listed twice.`, `${field}/${i}`);
    }
    seen.add(ref);
  });
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined || value === null) {
    throw invalid("REQUIRED", `${field.slice(1)} is required.`, field);
  }
  return value;
}

function validated(input: FacilityGroupInput, limits: GroupLimits) {
  const tenantFacilityGroupId = required(input.tenantFacilityGroupId, "/tenantFacilityGroupId");
  if (!TENANT_FACILITY_GROUP_ID.test(tenantFacilityGroupId)) {
    throw invalid(
      "INVALID_IDENTIFIER",
      "tenantFacilityGroupId must be 1 to 256 characters without whitespace, ':', '/', '?' or '#' (it is used in URNs).",
      "/tenantFacilityGroupId",
    );
  }
  const nameLocalized = required(input.nameLocalized, "/nameLocalized");
  if (Object.keys(nameLocalized).length === 0) {
    throw invalid("REQUIRED", "nameLocalized needs at least one locale.", "/nameLocalized");
  }
  checkLocaleString(nameLocalized, "/nameLocalized");
  const facilityRefs = required(input.facilityRefs, "/facilityRefs");
  checkRefs(facilityRefs, "/facilityRefs", limits.facilitiesPerGroup);
  checkCustomAttributes(input.customAttributes, "/customAttributes");
  return {
    tenantFacilityGroupId,
    nameLocalized,
    facilityRefs,
    customAttributes: input.customAttributes ?? null,
  };
}

export function createFacilityGroup(
  input: FacilityGroupInput,
  id: string,
  now: Date,
  limits: GroupLimits,
): FacilityGroup {
  return { id, version: 1, created: now, lastModified: now, ...validated(input, limits) };
}

/**
 * PATCH: a full replace of the updatable fields on the current version. What the request leaves
 * out is removed: `customAttributes` becomes null and `facilityRefs` empty; the fields a group
 * cannot be without (`tenantFacilityGroupId`, `nameLocalized`) keep their values.
 */
export function replaceFacilityGroup(
  current: FacilityGroup,
  input: FacilityGroupInput & { version?: unknown },
  now: Date,
  limits: GroupLimits,
): FacilityGroup {
  requireCurrentVersion("facility group", current, input.version);
  const next = validated(
    {
      tenantFacilityGroupId: input.tenantFacilityGroupId ?? current.tenantFacilityGroupId,
      nameLocalized: input.nameLocalized ?? current.nameLocalized,
      facilityRefs: input.facilityRefs ?? [],
      customAttributes: input.customAttributes ?? null,
    },
    limits,
  );
  return { ...current, ...next, version: current.version + 1, lastModified: now };
}

/** The facilities an action names, checked (1 to 200, no duplicates). */
export function actionFacilities(action: GroupAction): string[] {
  const add = "facilitiesToAdd" in action;
  const refs = add ? action.facilitiesToAdd : action.facilitiesToRemove;
  checkRefs(refs ?? [], add ? "/facilitiesToAdd" : "/facilitiesToRemove", FACILITIES_PER_ACTION, 1);
  return refs;
}

/**
 * An action's result: the group with the facilities added (new ones appended, present ones kept
 * where they are) or removed (absent ones ignored), and `added`, the facilities new to it (whose
 * group counts the caller checked). The versioned actions check the version the request names
 * (ADD only when it names one: the reference does not require it); the versionless ones apply
 * to whatever the group is now. A change that changes nothing leaves the version as it is.
 */
export function applyGroupAction(
  current: FacilityGroup,
  action: GroupAction,
  now: Date,
  limits: GroupLimits,
): { group: FacilityGroup; added: string[] } {
  const refs = actionFacilities(action);
  if (action.name === "REMOVE_FACILITIES_FROM_GROUP") {
    requireCurrentVersion("facility group", current, action.version);
  }
  if (action.name === "ADD_FACILITIES_TO_GROUP" && action.version !== undefined) {
    requireCurrentVersion("facility group", current, action.version);
  }
  let facilityRefs: string[];
  let added: string[] = [];
  if ("facilitiesToAdd" in action) {
    const present = new Set(current.facilityRefs);
    added = refs.filter((r) => !present.has(r));
    facilityRefs = [...current.facilityRefs, ...added];
    if (facilityRefs.length > limits.facilitiesPerGroup) {
      throw invalid(
        "GROUP_FULL",
        `facilitiesToAdd: the group would hold ${facilityRefs.length} facilities; at most ${limits.facilitiesPerGroup} are allowed.`,
        "/facilitiesToAdd",
      );
    }
  } else {
    const removed = new Set(refs);
    facilityRefs = current.facilityRefs.filter((r) => !removed.has(r));
  }
  if (facilityRefs.length === current.facilityRefs.length && added.length === 0) {
    return { group: current, added };
  }
  return { group: { ...current, facilityRefs, version: current.version + 1, lastModified: now }, added };
}

/** 400 naming the first facility already in as many groups as one may be in. */
export function checkGroupsPerFacility(
  added: string[],
  groupCounts: ReadonlyMap<string, number>,
  limits: GroupLimits,
  field: string,
): void {
  const full = added.find((ref) => (groupCounts.get(ref) ?? 0) >= limits.groupsPerFacility);
  if (full !== undefined) {
    throw invalid(
      "FACILITY_GROUP_LIMIT",
      `${field.slice(1)}: facility ${full} is already in ${limits.groupsPerFacility} facility groups, as many as one may be in.`,
      field,
    );
  }
}
