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
 * Every other sub-configuration is stored and returned only (the README says why).
 */
import { precondition } from "@fop/kit/errors";
import { requireCurrentVersion } from "@fop/kit/validation";
import { PICKING_LIMITS } from "./limits.ts";
import { shortPickReason } from "./lines.ts";
import type { JsonObject, PickRunKind } from "./types.ts";

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
  multiOrderPickingConfiguration: { maxAmountOfPickJobsForMultiOrderPick: PICKING_LIMITS.pickJobsPerRun },
  pickingShortPickConfiguration: { confirmationOnShortPick: false, shortPickReasons: [] },
  restartPickJobConfiguration: { active: true },
  scanCodeValidationConfiguration: { pickingScanCodeValidationType: "NO_VALIDATION" },
  stockUpdateConfiguration: { active: false },
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

/** The rules of the picking domain that a tenant's configuration governs. */
export interface PickingRules {
  /** A pick job may be restarted (restartPickJobConfiguration.active). */
  readonly restartPickJob: boolean;
  /** A pick run may be taken over by another user (takeOverPickRunConfiguration.active). */
  readonly takeOverPickRun: boolean;
  /** Pick jobs a new pick run of each type may have. */
  readonly maxPickJobsPerRun: Readonly<Record<PickRunKind, number>>;
  /** Scanned codes must be among the line's scannable codes (CODE_MUST_BE_KNOWN). */
  readonly scanCodesMustBeKnown: boolean;
}

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
  };
}

/** The rules of a tenant without a stored configuration. */
export const DEFAULT_PICKING_RULES: PickingRules = Object.freeze(pickingRules(DEFAULT_PICKING_CONFIGURATION));

/** The rules an action runs under: the context's, else the defaults. */
export const rulesOf = (ctx: { rules?: PickingRules }): PickingRules => ctx.rules ?? DEFAULT_PICKING_RULES;

/** 422 `code` when the tenant's configuration switches `what` off (naming the sub-configuration). */
export function requireEnabled(enabled: boolean, code: string, what: string, sub: PickingSubConfiguration) {
  if (!enabled) {
    throw precondition(code, `${what} is switched off for this tenant (${sub}.active is false).`);
  }
}
