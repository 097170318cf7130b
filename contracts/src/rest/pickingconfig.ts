/**
 * The picking configuration's schemas, matching the reference (PickingConfigurations and its
 * sub-configurations, with the reference's names, enums and bounds). The PATCH body and its
 * sub-configurations are closed, more strictly than the reference: the configuration governs behaviour, so a misspelt
 * sub-configuration or field would otherwise be dropped silently and change nothing (400 instead,
 * naming it). `created` / `lastModified` are accepted (a client may send back what it read) and ignored.
 */

import { type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { LOAD_UNIT_ASSIGNMENT_TYPES } from "../picking.ts";
import { DateTime, LocaleString, opt, RequestVersion, StringEnum } from "./common.ts";
import { PickingMethodEnum, PickingScanningConfigurationEnum, ScanningRuleConfiguration } from "./picking.ts";

export const SCAN_CODE_VALIDATION_TYPES = ["NO_VALIDATION", "CODE_MUST_BE_KNOWN"] as const;
export const USER_ROLE_NAMES = ["FULFILLER", "SUPERVISOR", "ADMINISTRATOR"] as const;
export const STORAGE_LOCATION_REQUIRED = ["ALL", "SOME", "NONE"] as const;

/** A closed object with a reference title. */
const Closed = <T extends TProperties>(title: string, properties: T, description?: string) =>
  Type.Object(properties, { title, additionalProperties: false, ...(description ? { description } : {}) });

const Active = (title: string, description: string) => Closed(title, { active: Type.Boolean() }, description);

const JobsPerRun = (description: string) => Type.Integer({ minimum: 1, maximum: 100, description });

const LoadUnitAssignmentType = StringEnum(LOAD_UNIT_ASSIGNMENT_TYPES, {
  title: "LoadUnitAssignmentType",
  description: "Where do the load unit needs to be assigned?",
});

/** Every sub-configuration of PickingConfigurations (reference names). */
export const PICKING_SUB_CONFIGURATIONS = {
  backofficePickingConfiguration: Active(
    "BackofficePickingConfiguration",
    "Can this tenant use the backoffice for picking?",
  ),
  batchPickingConfiguration: Closed("BatchPickingConfiguration", {
    maxAmountOfPickJobsForBatchPick: JobsPerRun(
      "The maximum amount of pick jobs that can be combined in a batch pick (1-100). Takes effect: a batch pick run over more jobs is a 400.",
    ),
  }),
  domainStatusConfiguration: Closed("PickingDomainStatusConfiguration", {
    mapAbortedToFinished: opt(
      Type.Boolean({
        description:
          "If true, the pickJob status ABORTED will be mapped to the domainStatus FINISHED instead of STUCK",
      }),
    ),
  }),
  loadUnitAssignmentConfiguration: Closed(
    "LoadUnitAssignmentConfiguration",
    { pickJob: LoadUnitAssignmentType, pickRun: LoadUnitAssignmentType },
    "Who do the load units need to be assigned in pickJob (SingleOrderPick) and pickRun (MultiOrderPick)",
  ),
  multiOrderPickingConfiguration: Closed("MultiOrderPickingConfiguration", {
    maxAmountOfPickJobsForMultiOrderPick: JobsPerRun(
      "The maximum amount of pick jobs that can be combined in a multi order pick (1-100). Takes effect: a multiOrder pick run over more jobs is a 400.",
    ),
  }),
  pickingMethodsConfiguration: Closed("PickingMethodsConfiguration", {
    defaultPickingMethod: PickingMethodEnum,
  }),
  pickingShortPickConfiguration: Closed("PickingShortPickConfiguration", {
    confirmationOnShortPick: Type.Boolean({
      description: "Does the picker needs to confirm a stock correction before adding a short pick",
    }),
    shortPickReasons: opt(
      Type.Array(
        Closed("ShortPickReason", {
          reasonLocalized: LocaleString,
          active: Type.Boolean({ description: "Flag to mark a reason as active or inactive" }),
          reason: opt(Type.String({ description: "Set by the service: the en_US text, else the first" })),
        }),
        { maxItems: 100 },
      ),
    ),
  }),
  restartPickJobConfiguration: Active(
    "RestartPickJobConfiguration",
    "Whether pick jobs may be restarted. Takes effect: when false, the RESTART action is a 422.",
  ),
  scanCodeValidationConfiguration: Closed("PickingScanCodeValidationConfiguration", {
    pickingScanCodeValidationType: StringEnum(SCAN_CODE_VALIDATION_TYPES, {
      title: "PickingScanCodeValidationEnum",
      description:
        "State that defines if unknown scan codes can be accepted. Takes effect: with CODE_MUST_BE_KNOWN a scanned code that is none of the line's scannableCodes (or its allowed substitutes') is a 422.",
    }),
  }),
  scanningConfiguration: Closed("PickingScanningConfiguration", {
    rolesWithOverwritingScanningPermission: opt(
      Type.Array(StringEnum(USER_ROLE_NAMES, { title: "UserRoleNames" }), { minItems: 1, maxItems: 3 }),
    ),
    scanningRule: opt(ScanningRuleConfiguration),
    scanningType: opt(PickingScanningConfigurationEnum()),
  }),
  scheduledPickJobReleaseConfiguration: Closed("ScheduledPickJobReleaseConfiguration", {
    openPickJobLeadTimeInMinutes: Type.Integer({ minimum: 0, maximum: 525_600 }),
  }),
  stockUpdateConfiguration: Active(
    "PickingStockUpdateConfiguration",
    "Enable or disable stock update check for pick jobs",
  ),
  storageLocationAssignmentConfiguration: Closed("StorageLocationAssignmentConfiguration", {
    storageLocationRequired: StringEnum(STORAGE_LOCATION_REQUIRED),
  }),
  takeOverPickJobConfiguration: Active("TakeOverPickJobConfiguration", "Enable or disable pick job takeover"),
  takeOverPickRunConfiguration: Active(
    "TakeOverPickRunConfiguration",
    "Enable or disable pick run takeover. Takes effect: when false, TAKE_OVER_PICK_RUN is a 422.",
  ),
} satisfies Record<string, TSchema>;

const subConfigurations = Object.fromEntries(
  Object.entries(PICKING_SUB_CONFIGURATIONS).map(([k, v]) => [k, opt(v)]),
) as {
  [K in keyof typeof PICKING_SUB_CONFIGURATIONS]: ReturnType<
    typeof opt<(typeof PICKING_SUB_CONFIGURATIONS)[K]>
  >;
};

/** GET / PATCH response: the tenant's configuration (version 0: nothing stored yet, the defaults). */
export const PickingConfigurations = Type.Object(
  {
    version: Type.Integer({ description: "0 until the first PATCH (the defaults), then 1, 2, ..." }),
    created: opt(DateTime("Set on the first PATCH")),
    lastModified: opt(DateTime()),
    ...subConfigurations,
  },
  { title: "PickingConfigurations", description: "PickingConfigurations" },
);

/** PATCH body: the version it is based on and the sub-configurations to replace. */
export const PickingConfigurationsPatch = Type.Object(
  {
    version: RequestVersion({
      minimum: 0,
      description: "The current version (0 before the first PATCH); 409 when stale.",
    }),
    created: opt(DateTime("Ignored (set by the service)")),
    lastModified: opt(DateTime("Ignored (set by the service)")),
    ...subConfigurations,
  },
  { title: "PickingConfigurationsPatch", additionalProperties: false },
);
