/**
 * The pick job state machine and every action of `POST /api/pickjobs/{id}/actions`.
 *
 * TRANSITIONS is the table of status-changing actions: the statuses each may start from, where it
 * leads ("computed" = CLOSE: CLOSED, or ABORTED when nothing was picked) and what it does to the lines.
 * LINE_ACTIONS change lines or metadata, never the status, in the statuses listed. Anything else is
 * 422 INVALID_TRANSITION naming the action, the current status and the statuses that would allow it.
 *
 *   OPEN        -START->   IN_PROGRESS (all lines IN_PROGRESS)
 *   IN_PROGRESS -PAUSE->   PAUSED
 *   PAUSED      -START | RESTART-> IN_PROGRESS
 *   OPEN | IN_PROGRESS -PICK-> PICKED (the named lines get their picks and are CLOSED)
 *   IN_PROGRESS | PICKED -CLOSE-> CLOSED (subStatus SHORT_PICKED when a line is short) or
 *                                 ABORTED (subStatus ZERO_PICKED when nothing at all was picked); all lines CLOSED
 *   OPEN | IN_PROGRESS | PAUSED | PICKED | WAITING_FOR_INPUT -ABORT-> ABORTED (PICK_JOB_ABORTED), -CANCEL-> CANCELED
 *   the same + CLOSED | ABORTED -OBSOLETE-> OBSOLETE
 *   IN_PROGRESS | PAUSED | PICKED | CLOSED | ABORTED -RESET-> OPEN (every pick undone)
 *   PAUSED | PICKED | CLOSED | ABORTED -RESTART-> IN_PROGRESS (picks kept, lines reopened)
 *   RESET and RESTART: 422 RESET_BLOCKED when the job's resetBlocked is set.
 *   RESTART: 422 RESTART_PICK_JOB_DISABLED when the tenant's restartPickJobConfiguration is off.
 *   PICK and MODIFY_PICK_JOB_LINE_ITEMS on an IN_PROGRESS job another user is editing take it over:
 *   422 TAKE_OVER_PICK_JOB_DISABLED when the tenant's takeOverPickJobConfiguration is off.
 *   START from OPEN (picking begins) and CLOSE (it ends): 422 LOAD_UNIT_REQUIRED when the tenant's
 *   loadUnitAssignmentConfiguration.pickJob requires a load unit then and the job has none.
 *
 * CANCELED, OBSOLETE, EXPIRED, REROUTED, REJECTED and RESTOWED are terminal: no client action leaves
 * them (the last four are set by platform processes). Whenever the status changes, subStatus is what
 * the action sets (or removed) and the deprecated statusReason mirrors it.
 *
 * The caller checks `version`; every applied action bumps it by one, sets lastModified and records
 * the editor (editor + usersModificationHistory). Inputs are never mutated.
 */
import { invalid, precondition } from "@fop/kit/errors";
import { PICKING_LIMITS, requireStaysWithin } from "./limits.ts";
import {
  applyLineUpdate,
  checkClosedLine,
  lineIndex,
  pickedWithSubstitutes,
  resetLine,
  splitSecondary,
} from "./lines.ts";
import { type PickingMoment, requireEnabled, requireLoadUnit, rulesOf } from "./picking-config.ts";
import { historyEntry, toAssignedUser } from "./pickjob.ts";
import {
  type ActionContext,
  type JsonObject,
  PICK_JOB_STATUSES,
  type PickJob,
  type PickJobEventType,
  type PickJobStatus,
  type PickJobSubStatus,
  type PickLineItem,
  type RecordableAttribute,
} from "./types.ts";

/** Statuses no client action leaves (set by the platform, or final). */
export const TERMINAL: readonly PickJobStatus[] = [
  "CANCELED",
  "OBSOLETE",
  "EXPIRED",
  "REROUTED",
  "REJECTED",
  "RESTOWED",
];
/** Not finished: picking may still happen or be abandoned. */
export const ACTIVE: readonly PickJobStatus[] = [
  "OPEN",
  "IN_PROGRESS",
  "PAUSED",
  "PICKED",
  "WAITING_FOR_INPUT",
];
/** Finished but not terminal: may still be reset, restarted or made obsolete. */
export const SETTLED: readonly PickJobStatus[] = ["CLOSED", "ABORTED"];
/** Every status but the terminal ones. */
export const NON_TERMINAL: readonly PickJobStatus[] = [...ACTIVE, ...SETTLED];
/** Where pick lines may still be changed (split, merged, modified). */
export const EDITABLE: readonly PickJobStatus[] = ACTIVE;

/** The status-changing actions. */
export type ActionName =
  | "START"
  | "PICK"
  | "CLOSE"
  | "ABORT"
  | "CANCEL"
  | "OBSOLETE"
  | "PAUSE"
  | "RESTART"
  | "RESET";
/** Actions that change lines or metadata, never the status. */
export type LineAction =
  | "REPLACE_ASSIGNED_USERS"
  | "SPLIT_LINE_ITEMS_PICK_JOB"
  | "MERGE_LINE_ITEMS_PICK_JOB"
  | "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES"
  | "MODIFY_PICK_JOB_LINE_ITEMS"
  | "ADD_TARGET_TIME";
/** Used by pick runs only (never reachable through REST). */
export type InternalAction = "ATTACH_PICK_RUN" | "DETACH_PICK_RUN";

/**
 * What a transition does to the pick lines:
 * - IN_PROGRESS: every line IN_PROGRESS, picks kept;
 * - PICK: the lines named in `lineItems` get their picks and are CLOSED;
 * - CLOSED: every line CLOSED;
 * - RESET: every line back to OPEN with nothing picked (see resetLine).
 */
export type LineEffect = "IN_PROGRESS" | "PICK" | "CLOSED" | "RESET";

export interface Transition {
  readonly from: readonly PickJobStatus[];
  /** The new status; "computed" = CLOSE: CLOSED, or ABORTED/ZERO_PICKED when nothing was picked. */
  readonly to: PickJobStatus | "computed";
  /** The subStatus the action sets (none = removed). CLOSE computes SHORT_PICKED / ZERO_PICKED. */
  readonly subStatus?: PickJobSubStatus;
  readonly lines?: LineEffect;
  /** RESET and RESTART are refused (422 RESET_BLOCKED) on a job with resetBlocked. */
  readonly blockedByResetBlocked?: true;
  readonly event: PickJobEventType;
}

export const TRANSITIONS: Readonly<Record<ActionName, Transition>> = {
  START: { from: ["OPEN", "PAUSED"], to: "IN_PROGRESS", lines: "IN_PROGRESS", event: "PICK_JOB_STARTED" },
  PAUSE: { from: ["IN_PROGRESS"], to: "PAUSED", event: "PICK_JOB_PAUSED" },
  RESTART: {
    from: ["PAUSED", "PICKED", "CLOSED", "ABORTED"],
    to: "IN_PROGRESS",
    lines: "IN_PROGRESS",
    blockedByResetBlocked: true,
    event: "PICK_JOB_RESTARTED",
  },
  PICK: { from: ["OPEN", "IN_PROGRESS"], to: "PICKED", lines: "PICK", event: "PICK_JOB_PICKED" },
  CLOSE: { from: ["IN_PROGRESS", "PICKED"], to: "computed", lines: "CLOSED", event: "PICK_JOB_CLOSED" },
  ABORT: { from: ACTIVE, to: "ABORTED", subStatus: "PICK_JOB_ABORTED", event: "PICK_JOB_ABORTED" },
  CANCEL: { from: ACTIVE, to: "CANCELED", event: "PICK_JOB_CANCELED" },
  OBSOLETE: { from: NON_TERMINAL, to: "OBSOLETE", event: "PICK_JOB_OBSOLETE" },
  RESET: {
    from: ["IN_PROGRESS", "PAUSED", "PICKED", "CLOSED", "ABORTED"],
    to: "OPEN",
    lines: "RESET",
    blockedByResetBlocked: true,
    event: "PICK_JOB_RESET",
  },
};

/**
 * Where each line/metadata action is allowed. Changing the lines themselves needs a job that is still
 * being worked on; assigned users, recordable attributes and the target time may also be set on a
 * CLOSED or ABORTED job (it can still be restarted), never on a terminal one.
 */
export const LINE_ACTIONS: Readonly<Record<LineAction, readonly PickJobStatus[]>> = {
  REPLACE_ASSIGNED_USERS: NON_TERMINAL,
  SPLIT_LINE_ITEMS_PICK_JOB: EDITABLE,
  MERGE_LINE_ITEMS_PICK_JOB: EDITABLE,
  UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES: NON_TERMINAL,
  MODIFY_PICK_JOB_LINE_ITEMS: EDITABLE,
  ADD_TARGET_TIME: NON_TERMINAL,
};

/** Where the internal pick-run actions are allowed (a job leaves a run in whatever status it has). */
export const INTERNAL_ACTIONS: Readonly<Record<InternalAction, readonly PickJobStatus[]>> = {
  ATTACH_PICK_RUN: ["OPEN", "IN_PROGRESS", "PAUSED"],
  DETACH_PICK_RUN: PICK_JOB_STATUSES,
};

const isActionName = (name: string): name is ActionName => Object.hasOwn(TRANSITIONS, name);
const isLineAction = (name: string): name is LineAction => Object.hasOwn(LINE_ACTIONS, name);
const isInternalAction = (name: string): name is InternalAction => Object.hasOwn(INTERNAL_ACTIONS, name);

/** 422 INVALID_TRANSITION unless `job` is in one of the `allowed` statuses. */
export function requireStatus(job: PickJob, action: string, allowed: readonly PickJobStatus[]): void {
  if (!allowed.includes(job.status)) {
    throw precondition(
      "INVALID_TRANSITION",
      `Action ${action} is not possible for a pick job in status ${job.status}; it is possible in status ${allowed.join(", ")}.`,
    );
  }
}

/** The picker's work on a job's lines: by another user on an IN_PROGRESS job, a take-over. */
export const PICKER_ACTIONS: readonly string[] = ["PICK", "MODIFY_PICK_JOB_LINE_ITEMS", "ModifyPickLineItem"];

/** Whether the job's current editor is someone other than the caller (by userId, else username). */
export function editedByAnother(job: PickJob, ctx: ActionContext): boolean {
  const editor = job.editor;
  if (!editor) return false;
  if (editor.userId && ctx.user.userId) return editor.userId !== ctx.user.userId;
  return editor.username !== ctx.user.username;
}

/**
 * 422 TAKE_OVER_PICK_JOB_DISABLED when the tenant switched take-over of pick jobs off and `action`
 * (one of PICKER_ACTIONS) would take the job over: it is IN_PROGRESS and another user edits it.
 * Supervisory actions (abort, cancel, reset, pause, assigned users, ...) are not take-overs.
 */
export function requireImplicitTakeOverAllowed(job: PickJob, action: string, ctx: ActionContext): void {
  if (rulesOf(ctx).takeOverPickJob || job.status !== "IN_PROGRESS" || !editedByAnother(job, ctx)) return;
  throw precondition(
    "TAKE_OVER_PICK_JOB_DISABLED",
    `Pick job ${job.id} is in progress with ${job.editor?.username}; ${action} by another user would take it over, and taking over a pick job is switched off for this tenant (takeOverPickJobConfiguration.active is false).`,
  );
}

/** 422 TAKE_OVER_PICK_JOB_DISABLED for an explicit take-over (ModifyPickJobLastEditor) when it is off. */
export function requireTakeOverAllowed(ctx: ActionContext): void {
  requireEnabled(
    rulesOf(ctx).takeOverPickJob,
    "TAKE_OVER_PICK_JOB_DISABLED",
    "Taking over a pick job",
    "takeOverPickJobConfiguration",
  );
}

/** Sets the status; subStatus (and its deprecated mirror statusReason) follow: set or removed. */
export function setStatus(job: PickJob, status: PickJobStatus, subStatus?: PickJobSubStatus): void {
  job.status = status;
  if (subStatus) {
    job.subStatus = subStatus;
    job.statusReason = subStatus;
  } else {
    delete job.subStatus;
    delete job.statusReason;
  }
}

/** Applies line updates (absolute picks) to copies of the named lines; `field` names the array. */
/**
 * Applies line updates (each with the path its errors name) to the job's own copy of its lines:
 * PICK, MODIFY_PICK_JOB_LINE_ITEMS and the deprecated PATCH's ModifyPickLineItem.
 */
export function updateLines(
  job: PickJob,
  updates: readonly { update: JsonObject; field: string }[],
  ctx: ActionContext,
  opts: { closeLine: boolean; allowStatus: boolean },
): void {
  for (const { update, field } of updates) {
    const line = job.pickLineItems[lineIndex(job.pickLineItems, update.id, `${field}/id`)]!;
    applyLineUpdate(line, update, ctx, { field, ...opts });
  }
}

/** Updates listed under one body field, each named by its index. */
const listed = (updates: readonly JsonObject[], field: string) =>
  updates.map((update, i) => ({ update, field: `${field}/${i}` }));

/**
 * CLOSE: every line CLOSED. Nothing picked at all (substitutes counted) -> ABORTED/ZERO_PICKED;
 * otherwise CLOSED, with SHORT_PICKED when a line has less than its quantity (its picked
 * substitutes counted). Lines closed here are judged against their short-pick tolerance (not when
 * the whole job is zero-picked: that aborts it).
 */
function close(job: PickJob): void {
  const total = job.pickLineItems.reduce((n, l) => n + pickedWithSubstitutes(l), 0);
  if (total > 0) {
    for (const line of job.pickLineItems) if (line.status !== "CLOSED") checkClosedLine(line);
  }
  job.pickLineItems = job.pickLineItems.map((l) => ({ ...l, status: "CLOSED" as const }));
  if (total === 0) {
    setStatus(job, "ABORTED", "ZERO_PICKED");
    return;
  }
  const short = job.pickLineItems.some((l) => pickedWithSubstitutes(l) < l.quantity);
  setStatus(job, "CLOSED", short ? "SHORT_PICKED" : undefined);
}

/**
 * The moment of picking `name` is from `status`: START from OPEN begins it, CLOSE (where it is
 * possible) ends it; anything else is neither.
 */
export function pickingMoment(status: PickJobStatus, name: string): PickingMoment | undefined {
  if (name === "START" && status === "OPEN") return "START";
  return name === "CLOSE" && TRANSITIONS.CLOSE.from.includes(status) ? "END" : undefined;
}

/**
 * Applies one status-changing action to `job` (a copy the caller owns) and returns the event it
 * raises. Shared by the actions endpoint, the deprecated PATCH and pick runs.
 */
export function transition(
  job: PickJob,
  name: ActionName,
  ctx: ActionContext,
  lineItems?: readonly JsonObject[],
): PickJobEventType {
  const t = TRANSITIONS[name];
  requireStatus(job, name, t.from);
  const moment = pickingMoment(job.status, name);
  if (moment) requireLoadUnit(ctx, job.id, moment);
  if (name === "RESTART") {
    requireEnabled(
      rulesOf(ctx).restartPickJob,
      "RESTART_PICK_JOB_DISABLED",
      "Restarting a pick job",
      "restartPickJobConfiguration",
    );
  }
  if (t.blockedByResetBlocked && job.resetBlocked) {
    throw precondition(
      "RESET_BLOCKED",
      `Pick job ${job.id} can no longer be reset or restarted (resetBlocked), so ${name} is not possible.`,
    );
  }
  switch (t.lines) {
    case "IN_PROGRESS":
      job.pickLineItems = job.pickLineItems.map((l) => ({ ...l, status: "IN_PROGRESS" }));
      break;
    case "PICK":
      updateLines(job, listed(lineItems ?? [], "/lineItems"), ctx, { closeLine: true, allowStatus: false });
      break;
    case "RESET":
      job.pickLineItems = job.pickLineItems.map(resetLine);
      break;
    case "CLOSED":
      close(job);
      return job.status === "ABORTED" ? "PICK_JOB_ABORTED" : t.event;
    case undefined:
      break;
  }
  setStatus(job, t.to as PickJobStatus, t.subStatus);
  return t.event;
}

/**
 * SPLIT_LINE_ITEMS_PICK_JOB: per info a new line takes `quantity` and `picked` off the source line
 * (originId = the source's originId, else its id; its recordable attributes get new ids with the
 * originals as originId). The source must keep a quantity >= 1 and a picked within 0..its quantity;
 * the new part may not carry more picked than its quantity. Secondary quantities and picks are
 * divided in proportion (`splitSecondary`).
 */
function split(job: PickJob, infos: readonly JsonObject[], ctx: ActionContext): void {
  const lines = [...job.pickLineItems];
  infos.forEach((info, i) => {
    const field = `/splitLineItemsInfo/${i}`;
    const at = lineIndex(lines, info.lineItemId, `${field}/lineItemId`);
    const source = lines[at]!;
    const quantity = info.quantity as number;
    const picked = info.picked as number;
    const rest = { quantity: source.quantity - quantity, picked: source.picked - picked };
    if (rest.quantity < 1) {
      throw invalid(
        "INVALID_SPLIT_QUANTITY",
        `Line ${source.id} has quantity ${source.quantity}: a split may take at most ${source.quantity - 1}, so that the line keeps at least 1.`,
        `${field}/quantity`,
      );
    }
    if (picked > quantity || rest.picked < 0 || rest.picked > rest.quantity) {
      throw invalid(
        "INVALID_SPLIT_PICKED",
        `Line ${source.id} (quantity ${source.quantity}, picked ${source.picked}): a part of ${quantity} with ${picked} picked would leave ${rest.picked} picked of ${rest.quantity}; both parts must keep picked within 0..quantity.`,
        `${field}/picked`,
      );
    }
    const secondary = splitSecondary(source, quantity, picked);
    const part: PickLineItem = {
      ...structuredClone(source),
      ...secondary.part,
      id: ctx.newId(),
      quantity,
      picked,
      originId: source.originId ?? source.id,
      scannedCodes: [],
    };
    delete part.substituteLineItems;
    delete part.shortPickReason;
    if (part.recordableAttributes) {
      part.recordableAttributes = part.recordableAttributes.map((a) => ({
        ...a,
        id: ctx.newId(),
        originId: a.originId ?? a.id,
      }));
    }
    lines[at] = { ...source, ...rest, ...secondary.rest };
    lines.push(part);
  });
  requireStaysWithin(lines.length, PICKING_LIMITS.pickLineItems, "pick line items");
  job.pickLineItems = lines;
}

const sumOptional = (parts: readonly PickLineItem[], key: "secondaryQuantity" | "secondaryPicked") =>
  parts.some((p) => p[key] !== undefined) ? parts.reduce((n, p) => n + (p[key] ?? 0), 0) : undefined;

/**
 * MERGE_LINE_ITEMS_PICK_JOB: at least two distinct lines of one article (same tenantArticleId) are
 * merged into the first named: quantities and picks (secondary ones too) summed, scanned codes and
 * substitute lines joined; the others removed.
 */
function merge(job: PickJob, ids: readonly string[]): void {
  if (ids.length < 2) {
    throw invalid("INVALID_MERGE", "Name at least two pick line items to merge.", "/lineItemIds");
  }
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (seen.has(id)) {
      throw invalid("INVALID_MERGE", `Pick line item ${id} is named twice.`, `/lineItemIds/${i}`);
    }
    seen.add(id);
  });
  const indexes = ids.map((id, i) => lineIndex(job.pickLineItems, id, `/lineItemIds/${i}`));
  const parts = indexes.map((i) => job.pickLineItems[i]!);
  const first = parts[0]!;
  const article = first.article.tenantArticleId;
  const other = parts.find((p) => p.article.tenantArticleId !== article);
  if (other) {
    throw precondition(
      "MERGE_ARTICLE_MISMATCH",
      `Only lines of one article can be merged: ${first.id} is ${article}, ${other.id} is ${other.article.tenantArticleId}.`,
    );
  }
  const merged: PickLineItem = {
    ...first,
    quantity: parts.reduce((n, p) => n + p.quantity, 0),
    picked: parts.reduce((n, p) => n + p.picked, 0),
  };
  for (const key of ["secondaryQuantity", "secondaryPicked"] as const) {
    const sum = sumOptional(parts, key);
    if (sum !== undefined) merged[key] = sum;
  }
  if (parts.some((p) => p.scannedCodes !== undefined))
    merged.scannedCodes = parts.flatMap((p) => p.scannedCodes ?? []);
  if (parts.some((p) => p.substituteLineItems !== undefined)) {
    merged.substituteLineItems = parts.flatMap((p) => p.substituteLineItems ?? []);
  }
  const drop = new Set(indexes.slice(1));
  job.pickLineItems = job.pickLineItems.flatMap((l, i) =>
    i === indexes[0] ? [merged] : drop.has(i) ? [] : [l],
  );
}

/** UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES: by recordableAttributeId, across all lines. */
function updateRecordableAttributes(job: PickJob, updates: readonly JsonObject[]): void {
  const lines = job.pickLineItems.map((l) =>
    l.recordableAttributes
      ? { ...l, recordableAttributes: l.recordableAttributes.map((a) => ({ ...a })) }
      : l,
  );
  updates.forEach((u, i) => {
    let attribute: RecordableAttribute | undefined;
    for (const l of lines)
      attribute ??= l.recordableAttributes?.find((a) => a.id === u.recordableAttributeId);
    if (!attribute) {
      throw invalid(
        "UNKNOWN_RECORDABLE_ATTRIBUTE",
        `No pick line item has a recordable attribute ${JSON.stringify(u.recordableAttributeId)}.`,
        `/recordableAttributeUpdates/${i}/recordableAttributeId`,
      );
    }
    if (u.keyLocalized !== undefined)
      attribute.keyLocalized = { ...(u.keyLocalized as Record<string, string>) };
    if (u.group !== undefined) attribute.group = u.group as string | null;
    if (u.recordingRule !== undefined)
      attribute.recordingRule = u.recordingRule as RecordableAttribute["recordingRule"];
    if (u.value !== undefined) attribute.value = u.value as string | null;
  });
  job.pickLineItems = lines;
}

/** ADD_TARGET_TIME: only while the job has no target time yet. */
function addTargetTime(job: PickJob, targetTime: string): void {
  if (job.deliveryinformation.targetTime) {
    throw precondition(
      "TARGET_TIME_ALREADY_SET",
      `Pick job ${job.id} already has the target time ${job.deliveryinformation.targetTime}.`,
    );
  }
  job.deliveryinformation = { ...job.deliveryinformation, targetTime };
}

/** ATTACH_PICK_RUN (internal): a job belongs to at most one pick run. */
function attachPickRun(job: PickJob, pickRunRef: string): void {
  if (job.pickRunRef && job.pickRunRef !== pickRunRef) {
    throw precondition(
      "ALREADY_IN_PICK_RUN",
      `Pick job ${job.id} already belongs to pick run ${job.pickRunRef}.`,
    );
  }
  job.pickRunRef = pickRunRef;
}

function applyLineAction(job: PickJob, name: LineAction, action: JsonObject, ctx: ActionContext): void {
  switch (name) {
    case "REPLACE_ASSIGNED_USERS":
      job.assignedUsers = (action.assignedUsers as JsonObject[]).map(toAssignedUser);
      return;
    case "SPLIT_LINE_ITEMS_PICK_JOB":
      split(job, action.splitLineItemsInfo as JsonObject[], ctx);
      return;
    case "MERGE_LINE_ITEMS_PICK_JOB":
      merge(job, action.lineItemIds as string[]);
      return;
    case "UPDATE_PICK_LINE_ITEM_RECORDABLE_ATTRIBUTES":
      updateRecordableAttributes(job, action.recordableAttributeUpdates as JsonObject[]);
      return;
    case "MODIFY_PICK_JOB_LINE_ITEMS":
      updateLines(
        job,
        listed(action.pickJobLineItemUpdates as JsonObject[], "/pickJobLineItemUpdates"),
        ctx,
        {
          closeLine: false,
          allowStatus: true,
        },
      );
      return;
    case "ADD_TARGET_TIME":
      addTargetTime(job, action.targetTime as string);
      return;
  }
}

/** The state-independent part of every change: version, lastModified, editor, history. */
export function touch(job: PickJob, ctx: ActionContext): void {
  const now = ctx.now.toISOString();
  job.version += 1;
  job.lastModified = now;
  job.editor = { ...ctx.user };
  job.usersModificationHistory = [...(job.usersModificationHistory ?? []), historyEntry(ctx)];
}

/**
 * POST /api/pickjobs/{id}/actions (one PickJobActionsParameter body), and the internal pick-run
 * actions `{name: "ATTACH_PICK_RUN", pickRunRef}` / `{name: "DETACH_PICK_RUN"}`. Does not check
 * `version` (the use case does). Returns the changed copy and the event to raise.
 */
export function applyPickJobAction(
  current: PickJob,
  action: JsonObject,
  ctx: ActionContext,
): { job: PickJob; event: PickJobEventType } {
  const job = structuredClone(current);
  const name = String(action.name);
  let event: PickJobEventType = "PICK_JOB_UPDATED";
  if (PICKER_ACTIONS.includes(name)) requireImplicitTakeOverAllowed(job, name, ctx);
  if (isActionName(name)) {
    event = transition(job, name, ctx, action.lineItems as JsonObject[] | undefined);
  } else if (isLineAction(name)) {
    requireStatus(job, name, LINE_ACTIONS[name]);
    applyLineAction(job, name, action, ctx);
  } else if (isInternalAction(name)) {
    requireStatus(job, name, INTERNAL_ACTIONS[name]);
    if (name === "ATTACH_PICK_RUN") attachPickRun(job, action.pickRunRef as string);
    else delete job.pickRunRef;
  } else {
    throw invalid("UNKNOWN_ACTION", `Unknown pick job action ${JSON.stringify(name)}.`, "/name");
  }
  touch(job, ctx);
  return { job, event };
}
