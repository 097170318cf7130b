/**
 * The three state machines of returns, as tables: for each action (or target status) the statuses
 * it may start from and where it leads. Anything else is 422 INVALID_TRANSITION naming the action,
 * the current status and the statuses that would allow it. The spec lists the status sets but not
 * the transitions ("not shown"); these follow the actions' names and are ours (README).
 *
 * Item return job (actions of POST /api/itemreturnjobs/{id}/actions):
 *   OPEN -StartItemReturnJob-> IN_PROGRESS
 *   OPEN | IN_PROGRESS -FinishItemReturnJob-> FINISHED
 *   FINISHED -RestartItemReturnJob-> IN_PROGRESS
 *   CANCELED is terminal (no action leads there or out: only a creation may say it).
 *
 * Item return (actions of POST .../itemreturns/{id}/actions):
 *   OPEN -AnnounceItemReturn-> ANNOUNCED            ANNOUNCED -OpenItemReturn-> OPEN
 *   ANNOUNCED | OPEN | PAUSED | WAITING_FOR_INPUT -StartItemReturn-> IN_PROGRESS
 *   IN_PROGRESS -PauseItemReturn-> PAUSED            IN_PROGRESS | PAUSED -WaitForInputItemReturn-> WAITING_FOR_INPUT
 *   OPEN | IN_PROGRESS | PAUSED | WAITING_FOR_INPUT -FinishItemReturn-> FINISHED
 *   ANNOUNCED | OPEN | IN_PROGRESS | PAUSED | WAITING_FOR_INPUT -CancelItemReturn-> CANCELED
 *   FINISHED, CANCELED and OBSOLETE are terminal.
 *
 * Line item (the `status` of PATCH .../returnedlineitems/{id} and .../returnednotreturnablelineitems/{id}):
 *   open statuses OPEN, IN_PROGRESS, WAITING_FOR_INPUT move freely among themselves and to a closed one;
 *   closed statuses ACCEPTED, REJECTED, CANCELED are final (a refund is decided on them).
 *   Setting the status a line has already changes nothing.
 */
import type { ItemReturnJobStatus, ItemReturnStatus, ReturnedLineItemStatus } from "@fop/contracts/returns";
import { precondition } from "@fop/kit/errors";

// The statuses are the contracts' (one statement for the gateway and this service).
export {
  ITEM_RETURN_JOB_STATUSES,
  ITEM_RETURN_STATUSES,
  type ItemReturnJobStatus,
  type ItemReturnStatus,
  RETURNED_LINE_ITEM_STATUSES,
  type ReturnedLineItemStatus,
} from "@fop/contracts/returns";

/** A line in one of these is decided: the refund rule (REFUND_TRIGGERED) waits for every line to be. */
export const CLOSED_LINE_STATUSES: readonly ReturnedLineItemStatus[] = ["ACCEPTED", "REJECTED", "CANCELED"];
const OPEN_LINE_STATUSES: readonly ReturnedLineItemStatus[] = ["OPEN", "IN_PROGRESS", "WAITING_FOR_INPUT"];

type Table<S extends string> = Record<string, { from: readonly S[]; to: S }>;

export const JOB_TRANSITIONS = {
  StartItemReturnJob: { from: ["OPEN"], to: "IN_PROGRESS" },
  FinishItemReturnJob: { from: ["OPEN", "IN_PROGRESS"], to: "FINISHED" },
  RestartItemReturnJob: { from: ["FINISHED"], to: "IN_PROGRESS" },
} as const satisfies Table<ItemReturnJobStatus>;

const ACTIVE_ITEM_RETURN: readonly ItemReturnStatus[] = [
  "OPEN",
  "IN_PROGRESS",
  "PAUSED",
  "WAITING_FOR_INPUT",
];
export const ITEM_RETURN_TRANSITIONS = {
  AnnounceItemReturn: { from: ["OPEN"], to: "ANNOUNCED" },
  OpenItemReturn: { from: ["ANNOUNCED"], to: "OPEN" },
  StartItemReturn: { from: ["ANNOUNCED", "OPEN", "PAUSED", "WAITING_FOR_INPUT"], to: "IN_PROGRESS" },
  PauseItemReturn: { from: ["IN_PROGRESS"], to: "PAUSED" },
  WaitForInputItemReturn: { from: ["IN_PROGRESS", "PAUSED"], to: "WAITING_FOR_INPUT" },
  FinishItemReturn: { from: ACTIVE_ITEM_RETURN, to: "FINISHED" },
  CancelItemReturn: { from: ["ANNOUNCED", ...ACTIVE_ITEM_RETURN], to: "CANCELED" },
} as const satisfies Table<ItemReturnStatus>;

export type JobAction = keyof typeof JOB_TRANSITIONS;
export type ItemReturnAction = keyof typeof ITEM_RETURN_TRANSITIONS;

function apply<S extends string>(entity: string, table: Table<S>, status: S, action: string): S {
  const t = Object.hasOwn(table, action) ? table[action] : undefined;
  if (!t) throw precondition("UNKNOWN_ACTION", `${action} is not an action of an ${entity}.`);
  if (!t.from.includes(status)) {
    const allowed = Object.entries(table)
      .filter(([, x]) => x.from.includes(status))
      .map(([name]) => name);
    throw precondition(
      "INVALID_TRANSITION",
      `${action} is not possible for an ${entity} in status ${status}: it needs ${t.from.join(" or ")}. ` +
        (allowed.length ? `Possible now: ${allowed.join(", ")}.` : `${status} is final.`),
    );
  }
  return t.to;
}

/** The job's status after `action`, or 422 INVALID_TRANSITION. */
export const jobTransition = (status: ItemReturnJobStatus, action: string): ItemReturnJobStatus =>
  apply("item return job", JOB_TRANSITIONS, status, action);

/** The item return's status after `action`, or 422 INVALID_TRANSITION. */
export const itemReturnTransition = (status: ItemReturnStatus, action: string): ItemReturnStatus =>
  apply("item return", ITEM_RETURN_TRANSITIONS, status, action);

/** Whether a line may go from `from` to `to` (the same status: always, as a no-op). */
export function lineTransitionAllowed(from: ReturnedLineItemStatus, to: ReturnedLineItemStatus): boolean {
  return from === to || OPEN_LINE_STATUSES.includes(from);
}

/** The line's new status, or 422 INVALID_TRANSITION naming what is possible. */
export function lineTransition(
  from: ReturnedLineItemStatus,
  to: ReturnedLineItemStatus,
): ReturnedLineItemStatus {
  if (lineTransitionAllowed(from, to)) return to;
  throw precondition(
    "INVALID_TRANSITION",
    `A line item in status ${from} is decided: it cannot become ${to} (${CLOSED_LINE_STATUSES.join(", ")} are final).`,
  );
}

export const isClosedLine = (status: ReturnedLineItemStatus): boolean =>
  CLOSED_LINE_STATUSES.includes(status);
