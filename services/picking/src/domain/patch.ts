/**
 * The deprecated `PATCH /api/pickjobs/{id}` (PickingPatchActions). Every ModifyPickLineItem is
 * applied first, then the other actions in their order, so the legacy "lines + status CLOSED" patch
 * works whatever its order; the whole patch is one change (version + 1 once).
 *
 * - ModifyPickLineItem: a line update (like MODIFY_PICK_JOB_LINE_ITEMS, incl. `status`;
 *   `shortPickReasonLocalized` becomes shortPickReason), allowed where MODIFY_PICK_JOB_LINE_ITEMS is.
 * - ModifyPickJob.status is mapped onto the state machine rather than written blindly:
 *   IN_PROGRESS = START (RESTART where START is not possible, e.g. from PICKED/CLOSED/ABORTED),
 *   PICKED = PICK (without lines), CLOSED = CLOSE, PAUSED = PAUSE, OPEN = RESET. The platform-set
 *   statuses REROUTED, REJECTED, RESTOWED, EXPIRED and WAITING_FOR_INPUT are set directly, but only
 *   from a non-terminal active status (OPEN, IN_PROGRESS, PAUSED, PICKED, WAITING_FOR_INPUT). The
 *   current status again is a no-op. The protected statuses ABORTED, CANCELED and OBSOLETE are 400
 *   PROTECTED_STATUS (the gateway's schema rejects them already; the domain does too).
 *   preferredPickingMethods, paymentInformation and customAttributes are replaced when given.
 * - ModifyPickJobLastEditor: take over the job (editor = the caller, as for every change); 422
 *   TAKE_OVER_PICK_JOB_DISABLED when the tenant's takeOverPickJobConfiguration is off, as is a
 *   ModifyPickLineItem on an IN_PROGRESS job another user is editing (an implicit take-over).
 * - RestartPickJob, ResetPickJob, AbortPickJob: RESTART, RESET, ABORT.
 */
import { invalid } from "@fop/kit/errors";
import {
  ACTIVE,
  type ActionName,
  LINE_ACTIONS,
  requireImplicitTakeOverAllowed,
  requireStatus,
  requireTakeOverAllowed,
  setStatus,
  TRANSITIONS,
  touch,
  transition,
  updateLines,
} from "./lifecycle.ts";
import type { PickingMoment } from "./picking-config.ts";
import type { ActionContext, JsonObject, PickJob, PickJobEventType, PickJobStatus } from "./types.ts";

/** Statuses ModifyPickJob sets directly (no client action reaches them). */
const DIRECT: readonly PickJobStatus[] = ["REROUTED", "REJECTED", "RESTOWED", "EXPIRED", "WAITING_FOR_INPUT"];

/** The state-machine action a ModifyPickJob status stands for, from the job's current status. */
function actionFor(job: PickJob, status: PickJobStatus): ActionName | undefined {
  switch (status) {
    case "IN_PROGRESS":
      return TRANSITIONS.START.from.includes(job.status) ? "START" : "RESTART";
    case "PICKED":
      return "PICK";
    case "CLOSED":
      return "CLOSE";
    case "PAUSED":
      return "PAUSE";
    case "OPEN":
      return "RESET";
    default:
      return undefined;
  }
}

function applyLineActions(job: PickJob, actions: readonly JsonObject[], ctx: ActionContext): void {
  if (!actions.some((a) => a.action === "ModifyPickLineItem")) return;
  requireStatus(job, "ModifyPickLineItem", LINE_ACTIONS.MODIFY_PICK_JOB_LINE_ITEMS);
  requireImplicitTakeOverAllowed(job, "ModifyPickLineItem", ctx);
  const updates = actions.flatMap((update, i) =>
    update.action === "ModifyPickLineItem" ? [{ update, field: `/actions/${i}` }] : [],
  );
  updateLines(job, updates, ctx, { closeLine: false, allowStatus: true });
}

/** ModifyPickJob.status; returns the event of the transition it made, if any. */
function modifyStatus(job: PickJob, status: PickJobStatus, ctx: ActionContext, field: string) {
  if (status === job.status) return undefined;
  const name = actionFor(job, status);
  if (name) return transition(job, name, ctx);
  if (!DIRECT.includes(status)) {
    throw invalid(
      "PROTECTED_STATUS",
      `Status ${status} cannot be set with ModifyPickJob; use the actions endpoint (POST /api/pickjobs/{pickJobId}/actions).`,
      field,
    );
  }
  requireStatus(job, `ModifyPickJob ${status}`, ACTIVE);
  setStatus(job, status);
  return "PICK_JOB_UPDATED" as const;
}

/**
 * The moments of picking a deprecated PATCH may reach, from its actions alone (the use case asks for
 * load units before applying it): ModifyPickJob status IN_PROGRESS may start the job, CLOSED closes it.
 */
export function patchPickingMoments(actions: readonly JsonObject[]): PickingMoment[] {
  const moments = new Set<PickingMoment>();
  for (const a of actions) {
    if (a.action !== "ModifyPickJob") continue;
    if (a.status === "IN_PROGRESS") moments.add("START");
    if (a.status === "CLOSED") moments.add("END");
  }
  return [...moments];
}

/** Applies a deprecated PATCH's actions; returns the changed copy and the events to raise (>= 1). */
export function applyPickJobPatch(
  current: PickJob,
  actions: readonly JsonObject[],
  ctx: ActionContext,
): { job: PickJob; events: PickJobEventType[] } {
  const job = structuredClone(current);
  const events: PickJobEventType[] = [];
  applyLineActions(job, actions, ctx);
  for (const [i, a] of actions.entries()) {
    switch (a.action) {
      case "ModifyPickLineItem":
        break;
      case "ModifyPickJob": {
        if (a.status !== undefined) {
          const event = modifyStatus(job, a.status as PickJobStatus, ctx, `/actions/${i}/status`);
          if (event) events.push(event);
        }
        if (a.preferredPickingMethods !== undefined) {
          job.preferredPickingMethods = structuredClone(
            a.preferredPickingMethods,
          ) as PickJob["preferredPickingMethods"];
        }
        if (a.paymentInformation !== undefined) {
          job.paymentInformation = structuredClone(a.paymentInformation) as PickJob["paymentInformation"];
        }
        if (a.customAttributes !== undefined) {
          job.customAttributes = structuredClone(a.customAttributes) as JsonObject | null;
        }
        break;
      }
      case "ModifyPickJobLastEditor":
        requireTakeOverAllowed(ctx);
        break; // touch() below makes the caller the editor
      case "RestartPickJob":
        events.push(transition(job, "RESTART", ctx));
        break;
      case "ResetPickJob":
        events.push(transition(job, "RESET", ctx));
        break;
      case "AbortPickJob":
        events.push(transition(job, "ABORT", ctx));
        break;
      default:
        throw invalid(
          "UNKNOWN_ACTION",
          `Unknown PATCH action ${JSON.stringify(a.action)}.`,
          `/actions/${i}/action`,
        );
    }
  }
  touch(job, ctx);
  return { job, events: events.length > 0 ? events : ["PICK_JOB_UPDATED"] };
}
