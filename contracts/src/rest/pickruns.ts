/**
 * Pick run request/response schemas, written to match the reference (PickRunForCreation, PickRun,
 * PickRunPatchAction, PickRunActionsParameter, PickRunPickJobsPatchAction). A run's lines are pick
 * job lines (their properties and partial stock locations come from ../pickjobs/schemas.ts); the
 * shared vocabulary (editor, action bodies, ...) comes from ../../schemas/;
 * bodies discriminated by `name`/`action` are validated in two passes, as for pick jobs (the route
 * schema checks the discriminator, then `*_SCHEMAS[discriminator]` the whole body).
 */

import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { PICK_RUN_STATUSES, PICK_RUN_TYPES } from "../picking.ts";
import { actionParameter, LooseVersion, patchAction } from "./actions.ts";
import { closed, DateTime, LocaleString, OneOf, opt, RequestVersion, StringEnum } from "./common.ts";
import { PickLineItemStatus } from "./picking.ts";
import { PickJobLineItemPartialStockLocationForUpdate, pickLineItemProperties } from "./pickjobs.ts";
import { Editor } from "./user.ts";

export const PickRunType = StringEnum(PICK_RUN_TYPES, {
  title: "PickRunType",
  default: "batchPick",
  description: "Deprecated: batchPick, use batch instead Deprecated: multiOrderPick, use multiOrder instead",
});
export const PickRunStatus = StringEnum(PICK_RUN_STATUSES, {
  title: "PickRunStatus",
  description: "The state of the PickRun",
});

export const PickRunForCreation = Type.Object(
  {
    facilityRef: Type.String(),
    // At most 100 jobs per run (our limit; the reference sets none: the picking README, "Limits").
    pickJobRefs: Type.Array(Type.String(), { minItems: 1, maxItems: 100 }),
    pickRunType: opt(PickRunType),
    status: opt(PickRunStatus),
  },
  { title: "PickRunForCreation" },
);
export type PickRunForCreation = Static<typeof PickRunForCreation>;

/** Reference: allOf[MandatoryLineItem] + the pick line's read properties + pickJobRef, globalLineItemIds. */
export const PickRunLineItem = Type.Object(
  {
    ...pickLineItemProperties,
    globalLineItemIds: opt(
      Type.Array(Type.String({ description: "Global line item ids that refer to this line item" })),
    ),
    pickJobRef: opt(Type.String()),
  },
  { title: "PickRunLineItem" },
);

/** Reference: allOf[VersionedResource, {...}]; required id, facilityRef, pickJobRefs, pickLineItems, status. */
export const PickRun = Type.Object(
  {
    created: opt(DateTime("The date this entity was created at the platform.")),
    lastModified: opt(DateTime("The date this entity was modified last.")),
    version: Type.Integer({
      description: "The version of the document to be used in optimistic locking mechanisms.",
    }),
    editor: opt(Editor),
    facilityRef: Type.String(),
    id: Type.String(),
    pickJobRefs: Type.Array(Type.String()),
    pickLineItems: Type.Array(PickRunLineItem),
    pickRunType: opt(PickRunType),
    status: PickRunStatus,
  },
  { title: "PickRun" },
);
export type PickRun = Static<typeof PickRun>;

// --- PATCH /api/pickruns/{id} (deprecated action list) -------------------------------------------

export const ShortPickReasonForUpsert = Type.Object(
  { reasonLocalized: opt(LocaleString) },
  { ...closed, title: "ShortPickReasonForUpsert" },
);

/** The reference leaves ModifyPickRunLineItem open (no `additionalProperties: false`). */
export const ModifyPickRunLineItem = Type.Object(
  {
    action: StringEnum(["ModifyPickRunLineItem"], { description: "Use value 'ModifyPickRunLineItem'" }),
    id: Type.String({ description: "The id of this lineItem." }),
    partialStockLocations: opt(Type.Array(PickJobLineItemPartialStockLocationForUpdate)),
    picked: opt(
      Type.Integer({ minimum: 0, description: "The amount of articles that were picked for this pickline." }),
    ),
    secondaryPicked: opt(
      Type.Integer({
        minimum: 0,
        description: "The secondary amount of articles that were picked for this pickline.",
      }),
    ),
    shortPickReason: opt(ShortPickReasonForUpsert),
    status: opt(PickLineItemStatus),
  },
  { title: "ModifyPickRunLineItem", description: "Action to modify a lineitem of a pickrun" },
);
export const StartPickRun = patchAction("StartPickRun", "Deprecated: start the pick run.", {}, true);
export const CancelPickRun = patchAction("CancelPickRun", "Deprecated: cancel the pick run.", {}, true);
export const FinishPickRun = patchAction("FinishPickRun", "Deprecated: finish the pick run.", {}, true);

const pickRunPatchActionSchemas = { ModifyPickRunLineItem, StartPickRun, CancelPickRun, FinishPickRun };
export type PickRunPatchActionName = keyof typeof pickRunPatchActionSchemas;
export const PICK_RUN_PATCH_ACTION_NAMES = Object.keys(pickRunPatchActionSchemas) as PickRunPatchActionName[];
/** Each PATCH action's own schema, by `action`. */
export const PICK_RUN_PATCH_ACTION_SCHEMAS: Readonly<Record<PickRunPatchActionName, TSchema>> &
  Readonly<Partial<Record<string, TSchema>>> = pickRunPatchActionSchemas;

export type PickRunPatchActionItem = {
  [N in PickRunPatchActionName]: Static<(typeof pickRunPatchActionSchemas)[N]>;
}[PickRunPatchActionName];
export type PickRunPatchAction = { version: number; actions: PickRunPatchActionItem[] };

/** The body of PATCH /api/pickruns/{pickRunId}: actions, each by `action`. */
export const PickRunPatchAction = Type.Object(
  {
    actions: Type.Array(OneOf("action", Object.values(pickRunPatchActionSchemas)), { minItems: 1 }),
    version: RequestVersion(),
  },
  { title: "PickRunPatchAction" },
);

// --- POST /api/pickruns/{id}/actions -------------------------------------------------------------

/** Some actions' version has no minimum in the reference. */

export const PickRunSplitLineItemsInfo = Type.Object(
  {
    lineItemId: Type.String({ description: "references the id of the pickLineItem of a pickRun" }),
    picked: Type.Integer({ minimum: 0 }),
    quantity: Type.Integer({ minimum: 1 }),
  },
  { ...closed, title: "PickRunSplitLineItemsInfo" },
);

export const PickRunStartActionParameter = actionParameter("START", {
  title: "PickRunStartActionParameter",
  description: "Action to start a PickRun.",
});
export const PickRunFinishActionParameter = actionParameter("FINISH", {
  title: "PickRunFinishActionParameter",
  description: "Action to finish a PickRun.",
});
export const PickRunCancelActionParameter = actionParameter("CANCEL", {
  title: "PickRunCancelActionParameter",
  description: "Action to cancel a PickRun.",
});
export const PickRunPauseActionParameter = actionParameter("PAUSE", {
  title: "PickRunPauseActionParameter",
  description: "Action to pause a PickRun.",
});
export const PickRunResumeActionParameter = actionParameter("RESUME", {
  title: "PickRunResumeActionParameter",
  description: "Action to resume a PickRun.",
});
export const PickRunRemovePickJobActionParameter = actionParameter("REMOVE_PICK_JOB", {
  title: "PickRunRemovePickJobActionParameter",
  description: "Action to Remove a Pickjob from a PickRun.",
  extra: { payload: Type.Object({ pickJobId: Type.String() }, closed) },
});
export const PickRunSplitLineItemsActionParameter = actionParameter("SPLIT_LINES_PICK_RUN", {
  title: "PickRunSplitLineItemsActionParameter",
  description: "Action to split pick run line items.",
  extra: { splitLineItemsInfo: Type.Array(PickRunSplitLineItemsInfo) },
  version: LooseVersion,
});
export const TakeOverPickRunActionParameter = actionParameter("TAKE_OVER_PICK_RUN", {
  title: "TakeOverPickRunActionParameter",
  description: "Action to take over a PickRun.",
  version: LooseVersion,
});

const pickRunActionSchemas = {
  START: PickRunStartActionParameter,
  FINISH: PickRunFinishActionParameter,
  CANCEL: PickRunCancelActionParameter,
  PAUSE: PickRunPauseActionParameter,
  RESUME: PickRunResumeActionParameter,
  REMOVE_PICK_JOB: PickRunRemovePickJobActionParameter,
  SPLIT_LINES_PICK_RUN: PickRunSplitLineItemsActionParameter,
  TAKE_OVER_PICK_RUN: TakeOverPickRunActionParameter,
};
export type PickRunActionName = keyof typeof pickRunActionSchemas;
export const PICK_RUN_ACTION_NAMES = Object.keys(pickRunActionSchemas) as PickRunActionName[];
/** Each action's own schema, by `name` (the route takes their OneOf, PickRunActionsParameter). */
export const PICK_RUN_ACTION_SCHEMAS: Readonly<Record<PickRunActionName, TSchema>> &
  Readonly<Partial<Record<string, TSchema>>> = pickRunActionSchemas;

/** The body of POST /api/pickruns/{pickRunId}/actions: one of the 8 action parameters. */
export type PickRunActionsParameter = {
  [N in PickRunActionName]: Static<(typeof pickRunActionSchemas)[N]>;
}[PickRunActionName];

/** The body of POST /api/pickruns/{pickRunId}/actions: one of the 8 action parameters, by `name`. */
export const PickRunActionsParameter = OneOf("name", Object.values(pickRunActionSchemas), {
  title: "PickRunActionsParameter",
});

// --- PATCH /api/pickruns/{id}/pickjobs (deprecated) ----------------------------------------------

export const RemovePickJobFromPickRun = Type.Object(
  {
    action: StringEnum(["RemovePickJobFromPickRun"], { description: "Use value 'RemovePickJobFromPickRun'" }),
    pickJobRef: Type.String({ description: "PickJob reference of the PickJob you want to remove." }),
  },
  { ...closed, title: "RemovePickJobFromPickRun", deprecated: true },
);
export const PickRunPickJobsPatchAction = Type.Object(
  {
    actions: Type.Array(RemovePickJobFromPickRun, { minItems: 1, maxItems: 1 }),
    version: RequestVersion(),
  },
  { title: "PickRunPickJobsPatchAction" },
);
export type PickRunPickJobsPatchAction = Static<typeof PickRunPickJobsPatchAction>;

export const PickRunIdParams = Type.Object({
  pickRunId: Type.String({ minLength: 1, maxLength: 256, description: "ID of the pick run" }),
});
