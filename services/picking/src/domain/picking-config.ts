/**
 * The tenant's picking configuration (GET/PATCH /api/configurations/picking, reference schema
 * PickingConfigurations) and the rules the picking domain takes from it. Pure functions.
 *
 * - Before the first PATCH nothing is stored: GET answers the defaults (DEFAULT_PICKING_CONFIGURATION,
 *   version 0, no created/lastModified). The first PATCH names version 0 and creates it (version 1);
 *   every later one names the current version (409 when stale).
 * - PATCH replaces each sub-configuration the body names, as a whole; the others are kept.
 * - Short-pick reasons get `reason`: the en_US text of `reasonLocalized`, else the first one.
 *
 * Sub-configurations that govern behaviour of this platform (pickingRules):
 * - restartPickJobConfiguration.active: false -> RESTART of a pick job is refused (422).
 * - takeOverPickRunConfiguration.active: false -> TAKE_OVER_PICK_RUN is refused (422).
 * - batchPickingConfiguration.maxAmountOfPickJobsForBatchPick and
 *   multiOrderPickingConfiguration.maxAmountOfPickJobsForMultiOrderPick: how many pick jobs a new
 *   pick run of that type may have (400 naming /pickJobRefs beyond).
 * - scanCodeValidationConfiguration.pickingScanCodeValidationType CODE_MUST_BE_KNOWN: a scanned code
 *   recorded on a pick line must be one of the line's (or its allowed substitutes') scannableCodes.
 * - takeOverPickJobConfiguration.active: false -> ModifyPickJobLastEditor, and a picker's line work
 *   on an IN_PROGRESS job another user is editing (an implicit take-over), are refused (422).
 * - pickingShortPickConfiguration.shortPickReasons: when any are configured, a short-pick reason
 *   recorded on a line must match an active one (422).
 * - scanningConfiguration.scanningType MUST_SCAN_EACH / MUST_SCAN_FIRST: a line's picks need
 *   scanned codes (422), unless the caller has a role of rolesWithOverwritingScanningPermission.
 * - loadUnitAssignmentConfiguration.pickJob: when a pick job needs a load unit (AT_START: to be
 *   started from OPEN; AT_END and DURING_PICKING: to be closed), else 422 LOAD_UNIT_REQUIRED.
 *   loadUnitAssignmentConfiguration.pickRun: the same for every job of a pick run, at the run's
 *   START (the jobs it starts from OPEN) and FINISH (all its jobs); its jobs follow only this one.
 * Every other sub-configuration is stored and returned only (the README says why).
 */
import {
  LOAD_UNIT_ASSIGNMENT_TYPES,
  type LoadUnitAssignmentType,
  SCANNING_TYPES,
  type ScanningType,
} from "@fop/contracts/picking";
import { precondition } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import { PICKING_LIMITS } from "./limits.ts";
import type { JsonObject, PickingRules } from "./types.ts";

/** `reason` of a short-pick reason: the en_US text, else the first one. */
export function shortPickReason(reasonLocalized: Record<string, string>) {
  const reason = reasonLocalized.en_US ?? Object.values(reasonLocalized)[0];
  return reason === undefined ? { reasonLocalized } : { reasonLocalized, reason };
}

/** Every sub-configuration of PickingConfigurations, as the reference names them. */
export const PICKING_SUB_CONFIGURATIONS = [
  "backofficePickingConfiguration",
  "batchPickingConfiguration",
  "domainStatusConfiguration",
  "loadUnitAssignmentConfiguration",
  "multiOrderPickingConfiguration",
  "pickingMethodsConfiguration",
  "pickingShortPickConfiguration",
  "restartPickJobConfiguration",
  "scanCodeValidationConfiguration",
  "scanningConfiguration",
  "scheduledPickJobReleaseConfiguration",
  "stockUpdateConfiguration",
  "storageLocationAssignmentConfiguration",
  "takeOverPickJobConfiguration",
  "takeOverPickRunConfiguration",
] as const;
export type PickingSubConfiguration = (typeof PICKING_SUB_CONFIGURATIONS)[number];

export type PickingConfiguration = {
  version: number;
  created?: string;
  lastModified?: string;
} & Partial<Record<PickingSubConfiguration, JsonObject>>;

/**
 * What GET answers before the first PATCH: the sub-configurations that take effect, with the values
 * in effect (the platform's behaviour before there was a configuration), and those whose every
 * required field has a reference default. Take-over stays possible until a tenant switches it off
 * (the reference's `active` default, false, only describes an object given without `active`, which
 * its schema does not allow).
 */
export const DEFAULT_PICKING_CONFIGURATION: Readonly<PickingConfiguration> = Object.freeze({
  version: 0,
  backofficePickingConfiguration: { active: false },
  batchPickingConfiguration: { maxAmountOfPickJobsForBatchPick: PICKING_LIMITS.pickJobsPerRun },
  domainStatusConfiguration: { mapAbortedToFinished: false },
  loadUnitAssignmentConfiguration: { pickJob: "INACTIVE", pickRun: "INACTIVE" },
  multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: PICKING_LIMITS.pickJobsPerRun },
  pickingShortPickConfiguration: { confirmationOnShortPick: false, shortPickReasons: [] },
  restartPickJobConfiguration: { active: true },
  scanCodeValidationConfiguration: { pickingScanCodeValidationType: "NO_VALIDATION" },
  stockUpdateConfiguration: { active: false },
  takeOverPickJobConfiguration: { active: true },
  takeOverPickRunConfiguration: { active: true },
});

/** A fresh copy of the defaults (what a tenant without a stored configuration has). */
export const defaultPickingConfiguration = (): PickingConfiguration =>
  structuredClone(DEFAULT_PICKING_CONFIGURATION) as PickingConfiguration;

/** Short-pick reasons with their `reason` text filled from `reasonLocalized`. */
function withReasonTexts(shortPick: JsonObject): JsonObject {
  if (!Array.isArray(shortPick.shortPickReasons)) return shortPick;
  return {
    ...shortPick,
    shortPickReasons: (shortPick.shortPickReasons as JsonObject[]).map(
      (r) => ({ ...r, ...shortPickReason(r.reasonLocalized as Record<string, string>) }) as JsonObject,
    ),
  };
}

/**
 * PATCH: the configuration after the write (`current` undefined: none stored yet, the defaults are
 * patched). The body's `version` must be the current one (0 before the first write).
 */
export function patchPickingConfiguration(
  current: PickingConfiguration | undefined,
  body: JsonObject,
  now: Date,
): PickingConfiguration {
  const base = current ?? defaultPickingConfiguration();
  requireCurrentVersion("picking configuration", base, body.version);
  const at = now.toISOString();
  const next: PickingConfiguration = {
    ...structuredClone(base),
    version: base.version + 1,
    created: base.created ?? at,
    lastModified: at,
  };
  for (const key of PICKING_SUB_CONFIGURATIONS) {
    const given = body[key];
    if (given === undefined || given === null) continue;
    const value = structuredClone(given) as JsonObject;
    next[key] = key === "pickingShortPickConfiguration" ? withReasonTexts(value) : value;
  }
  return next;
}

const assignmentType = (v: unknown): LoadUnitAssignmentType =>
  (LOAD_UNIT_ASSIGNMENT_TYPES as readonly unknown[]).includes(v) ? (v as LoadUnitAssignmentType) : "INACTIVE";

/** The two moments of picking a load unit can be required at: its start and its end. */
export type PickingMoment = "START" | "END";

/**
 * Whether `type` requires a load unit at `moment`: AT_START at the start; AT_END at the end;
 * DURING_PICKING at the end too (assigned at some point while picking: by the time the job is
 * closed at the latest, so picking may start without one). INACTIVE: never.
 */
export function requiresLoadUnit(type: LoadUnitAssignmentType, moment: PickingMoment): boolean {
  if (type === "AT_START") return moment === "START";
  return (type === "AT_END" || type === "DURING_PICKING") && moment === "END";
}

const scanningType = (sub: JsonObject | undefined): ScanningType =>
  (SCANNING_TYPES as readonly unknown[]).includes(sub?.scanningType)
    ? (sub!.scanningType as ScanningType)
    : "SCAN_NOT_REQUIRED";

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** The texts of the active configured short-pick reasons (a reason without `active` counts as active). */
const activeReasons = (sub: JsonObject | undefined): Record<string, string>[] =>
  (Array.isArray(sub?.shortPickReasons) ? (sub.shortPickReasons as JsonObject[]) : [])
    .filter((r) => r.active !== false && typeof r.reasonLocalized === "object" && r.reasonLocalized !== null)
    .map((r) => ({ ...(r.reasonLocalized as Record<string, string>) }));

const flag = (sub: JsonObject | undefined, fallback: boolean): boolean =>
  typeof sub?.active === "boolean" ? sub.active : fallback;

const count = (sub: JsonObject | undefined, field: string): number => {
  const n = sub?.[field];
  return typeof n === "number" && Number.isInteger(n) && n >= 1
    ? Math.min(n, PICKING_LIMITS.pickJobsPerRun)
    : PICKING_LIMITS.pickJobsPerRun;
};

/** The rules a configuration sets; a missing sub-configuration leaves its rule at the default. */
export function pickingRules(c: PickingConfiguration): PickingRules {
  return {
    restartPickJob: flag(c.restartPickJobConfiguration, true),
    takeOverPickRun: flag(c.takeOverPickRunConfiguration, true),
    maxPickJobsPerRun: {
      batch: count(c.batchPickingConfiguration, "maxAmountOfPickJobsForBatchPick"),
      multiOrder: count(c.multiOrderPickingConfiguration, "maxAmountOfPickJobsForMultiOrderPick"),
    },
    scanCodesMustBeKnown:
      c.scanCodeValidationConfiguration?.pickingScanCodeValidationType === "CODE_MUST_BE_KNOWN",
    takeOverPickJob: flag(c.takeOverPickJobConfiguration, true),
    shortPickReasons: activeReasons(c.pickingShortPickConfiguration),
    scanning: scanningType(c.scanningConfiguration),
    scanningOverrideRoles: strings(c.scanningConfiguration?.rolesWithOverwritingScanningPermission),
    loadUnitAssignment: {
      pickJob: assignmentType(c.loadUnitAssignmentConfiguration?.pickJob),
      pickRun: assignmentType(c.loadUnitAssignmentConfiguration?.pickRun),
    },
  };
}

/**
 * The rules a pick run's changes to its pick jobs run under: the run's own rules govern who works
 * on it (TAKE_OVER_PICK_RUN), and its lines carry no scanned codes (ModifyPickRunLineItem has none),
 * so neither the job take-over nor the scanning rule applies to them. Their load units follow the
 * run's setting (loadUnitAssignmentConfiguration.pickRun, judged by the run), not the single-order one.
 */
export const pickRunJobRules = (rules: PickingRules): PickingRules => ({
  ...rules,
  takeOverPickJob: true,
  scanning: "SCAN_NOT_REQUIRED",
  loadUnitAssignment: { ...rules.loadUnitAssignment, pickJob: "INACTIVE" },
});

/** The rules of a tenant without a stored configuration. */
export const DEFAULT_PICKING_RULES: PickingRules = Object.freeze(pickingRules(DEFAULT_PICKING_CONFIGURATION));

/** The rules an action runs under: the context's, else the defaults. */
export const rulesOf = (ctx: { rules?: PickingRules }): PickingRules => ctx.rules ?? DEFAULT_PICKING_RULES;

/**
 * Whether a short-pick reason's texts match a configured one: the same text in at least one locale
 * (a client may send only the locale it shows). No configured reasons: every reason matches.
 */
export function isKnownShortPickReason(
  rules: PickingRules,
  reasonLocalized: Readonly<Record<string, string>>,
): boolean {
  if (rules.shortPickReasons.length === 0) return true;
  return rules.shortPickReasons.some((known) =>
    Object.entries(reasonLocalized).some(([locale, text]) => known[locale] === text),
  );
}

/**
 * 422 SHORT_PICK_REASON_UNKNOWN (naming `field`) unless `reasonLocalized` matches an active
 * configured short-pick reason (see isKnownShortPickReason).
 */
export function requireKnownShortPickReason(
  rules: PickingRules,
  reasonLocalized: Readonly<Record<string, string>>,
  field: string,
): void {
  if (isKnownShortPickReason(rules, reasonLocalized)) return;
  const known = rules.shortPickReasons.map((r) => JSON.stringify(r)).join(", ");
  throw precondition(
    "SHORT_PICK_REASON_UNKNOWN",
    `The short-pick reason ${JSON.stringify(reasonLocalized)} (${field}) is none of this tenant's active short-pick reasons (pickingShortPickConfiguration.shortPickReasons: ${known}); a reason matches when it has the same text in one locale.`,
  );
}

/** Whether the caller may pick without scans (holds a role of rolesWithOverwritingScanningPermission). */
export const mayPickWithoutScans = (rules: PickingRules, roles: readonly string[] | undefined): boolean =>
  rules.scanningOverrideRoles.some((r) => roles?.includes(r));

/**
 * 422 SCAN_REQUIRED (naming `field`) when a line's picks are not backed by the scans the tenant's
 * scanningType asks for: MUST_SCAN_EACH -> `picked` at most the total quantity of its scanned codes;
 * MUST_SCAN_FIRST -> `picked` > 0 only with at least one scanned code. SCAN_NOT_REQUIRED and callers
 * with an overriding role: anything.
 */
export function requireScans(
  rules: PickingRules,
  roles: readonly string[] | undefined,
  line: { id: string; picked: number; scannedCodes?: readonly { quantity: number }[] },
  field: string,
): void {
  if (rules.scanning === "SCAN_NOT_REQUIRED" || line.picked <= 0 || mayPickWithoutScans(rules, roles)) return;
  const codes = line.scannedCodes ?? [];
  const scanned = codes.reduce((n, c) => n + (typeof c.quantity === "number" ? c.quantity : 0), 0);
  if (rules.scanning === "MUST_SCAN_FIRST" && codes.length > 0) return;
  if (rules.scanning === "MUST_SCAN_EACH" && line.picked <= scanned) return;
  const what =
    rules.scanning === "MUST_SCAN_EACH"
      ? `every picked item must be scanned: picked ${line.picked}, scanned ${scanned}`
      : "an article must be scanned before it is picked, and the line has no scanned code";
  throw precondition(
    "SCAN_REQUIRED",
    `Line ${line.id} (${field}): ${what} (scanningConfiguration.scanningType ${rules.scanning}; record scannedCodes with the picks, or act with a role of rolesWithOverwritingScanningPermission).`,
  );
}

/** 422 `code` when the tenant's configuration switches `what` off (naming the sub-configuration). */
export function requireEnabled(enabled: boolean, code: string, what: string, sub: PickingSubConfiguration) {
  if (!enabled) {
    throw precondition(code, `${what} is switched off for this tenant (${sub}.active is false).`);
  }
}

/** Who a load unit assignment setting is for: single-order pick jobs, or the jobs of a pick run. */
export type LoadUnitAssignee = "pickJob" | "pickRun";

/** Whether a change (of a pick job or a pick run) reaching `moments` needs to know which jobs have a load unit. */
export const needsLoadUnitAnswer = (
  rules: PickingRules,
  moments: readonly (PickingMoment | undefined)[],
  of: LoadUnitAssignee = "pickJob",
) => moments.some((m) => m !== undefined && requiresLoadUnit(rules.loadUnitAssignment[of], m));

const WHEN: Record<LoadUnitAssignmentType, string> = {
  INACTIVE: "",
  AT_START: "at the start of picking",
  AT_END: "at the end of picking",
  DURING_PICKING: "to be assigned during picking, by its end",
};

/**
 * 422 LOAD_UNIT_REQUIRED when the tenant's loadUnitAssignmentConfiguration[`of`] requires a load
 * unit at `moment` of pick job `pickJobId` and the context does not know one assigned to it
 * (`pickJobsWithLoadUnits`: the use case asks the loadunits service only when this applies).
 */
export function requireLoadUnit(
  ctx: { rules?: PickingRules; pickJobsWithLoadUnits?: ReadonlySet<string> },
  pickJobId: string,
  moment: PickingMoment,
  of: LoadUnitAssignee = "pickJob",
): void {
  const type = rulesOf(ctx).loadUnitAssignment[of];
  if (!requiresLoadUnit(type, moment) || ctx.pickJobsWithLoadUnits?.has(pickJobId)) return;
  const what =
    of === "pickJob"
      ? `cannot be ${moment === "START" ? "started" : "closed"}`
      : `cannot be ${moment === "START" ? "started" : "finished"} in its pick run`;
  throw precondition(
    "LOAD_UNIT_REQUIRED",
    `Pick job ${pickJobId} has no load unit and ${what}: this tenant's configuration requires a load unit ${WHEN[type]} (loadUnitAssignmentConfiguration.${of} ${type}); assign one first (POST /api/pickjobs/{pickJobId}/loadunits).`,
  );
}
