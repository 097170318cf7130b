/**
 * A pick job's birth (PickJobForCreation -> PickJob read model) and what can be read off it.
 *
 * Creation rules:
 * - version 1, created = lastModified = now, id from the caller, shortId from the body else generated.
 * - status: OPEN (default), WAITING_FOR_INPUT, IN_PROGRESS or PAUSED (the reference allows any
 *   PickJobStatus; these are the ones that need no picks behind them: the lines stay OPEN, as after
 *   the legacy PATCH to IN_PROGRESS). PICKED/CLOSED would claim picks that never happened, ABORTED/
 *   CANCELED/OBSOLETE are reached through actions only and REROUTED/REJECTED/RESTOWED/EXPIRED are the
 *   platform's: 400 STATUS_NOT_ALLOWED_ON_CREATION naming the allowed ones.
 * - tags together with processId: 400 TAGS_WITH_PROCESS.
 * - every pick line gets a new id, picked 0, status OPEN and no scanned codes; its recordable attributes
 *   and every expected pick line get new ids.
 * - deliveryinformation keeps the given fields, channel defaults to SHIPPING; workflowInformation
 *   defaults to {isAvailable: false}; documentHandling {sendLabel: {enabled: false}}; documentsRef
 *   `documents/<id>`; resetBlocked and anonymized false.
 * - assignedUsers: there is no user registry yet, so `{username}` becomes {username, userId: username}
 *   and `{userId}` becomes {userId, username: userId}.
 * - editor and usersModificationHistory start with the creating user.
 * - every other given field is kept as is.
 */
import { AppError, invalid } from "@fop/kit/errors";
import { PICKING_LIMITS, requireAtMost } from "./limits.ts";
import type {
  ActionContext,
  JsonObject,
  PickJob,
  PickJobStatus,
  PickLineItem,
  RecordableAttribute,
  User,
} from "./types.ts";

/** Statuses a client may create a job in. */
export const CREATION_STATUSES: readonly PickJobStatus[] = [
  "OPEN",
  "WAITING_FOR_INPUT",
  "IN_PROGRESS",
  "PAUSED",
];

/**
 * `{username}` or `{userId}` -> AssignedUser. No user registry yet: the one given names the other too.
 */
export function toAssignedUser(u: JsonObject): Required<User> {
  const username = typeof u.username === "string" ? u.username : undefined;
  const userId = typeof u.userId === "string" ? u.userId : undefined;
  return { username: username ?? userId ?? "", userId: userId ?? username ?? "" };
}

function newLine(input: JsonObject, ctx: ActionContext): PickLineItem {
  const line = structuredClone(input) as unknown as PickLineItem;
  line.id = ctx.newId();
  line.picked = 0;
  line.status = "OPEN";
  line.scannedCodes = [];
  if (Array.isArray(line.recordableAttributes)) {
    line.recordableAttributes = line.recordableAttributes.map(
      (a): RecordableAttribute => ({ ...a, id: ctx.newId() }),
    );
  }
  return line;
}

/** PickJobForCreation (already schema-validated) -> the stored/read PickJob. */
export function createPickJob(
  input: JsonObject,
  ctx: ActionContext & { id: string; shortId: string },
): PickJob {
  const status = (input.status as PickJobStatus | undefined) ?? "OPEN";
  if (!CREATION_STATUSES.includes(status)) {
    throw invalid(
      "STATUS_NOT_ALLOWED_ON_CREATION",
      `A pick job cannot be created in status ${status}; allowed on creation: ${CREATION_STATUSES.join(", ")}.`,
      "/status",
    );
  }
  requireAtMost(
    (input.pickLineItems as unknown[] | undefined)?.length ?? 0,
    PICKING_LIMITS.pickLineItems,
    "pick line items",
    "/pickLineItems",
  );
  requireAtMost(
    (input.expectedPickLineItems as unknown[] | undefined)?.length ?? 0,
    PICKING_LIMITS.expectedPickLineItems,
    "expected pick line items",
    "/expectedPickLineItems",
  );
  if (input.tags !== undefined && input.processId !== undefined) {
    throw invalid(
      "TAGS_WITH_PROCESS",
      "tags can only be set on a pick job that belongs to no process: remove tags or processId.",
      "/tags",
    );
  }
  const now = ctx.now.toISOString();
  const body = structuredClone(input);
  const delivery = (body.deliveryinformation as JsonObject | undefined) ?? {};
  const job = {
    ...body,
    id: ctx.id,
    version: 1,
    created: now,
    lastModified: now,
    shortId: typeof body.shortId === "string" && body.shortId !== "" ? body.shortId : ctx.shortId,
    status,
    deliveryinformation: { ...delivery, channel: delivery.channel ?? "SHIPPING" },
    workflowInformation: body.workflowInformation ?? { isAvailable: false },
    documentsRef: `documents/${ctx.id}`,
    documentHandling: { sendLabel: { enabled: false } },
    resetBlocked: false,
    anonymized: false,
    pickLineItems: ((body.pickLineItems as JsonObject[] | undefined) ?? []).map((l) => newLine(l, ctx)),
    editor: { ...ctx.user },
    usersModificationHistory: [historyEntry(ctx)],
  } as unknown as PickJob;
  if (Array.isArray(body.expectedPickLineItems)) {
    job.expectedPickLineItems = (body.expectedPickLineItems as JsonObject[]).map((l) => ({
      ...l,
      id: ctx.newId(),
    }));
  }
  if (Array.isArray(body.assignedUsers)) {
    job.assignedUsers = (body.assignedUsers as JsonObject[]).map(toAssignedUser);
  }
  return job;
}

/**
 * The substitutes allowed for one line, by priority (lowest = most preferable first; without a
 * priority last, in their given order). Unknown line: 404 PICK_LINE_ITEM_NOT_FOUND.
 */
export function availableSubstitutes(
  job: PickJob,
  lineItemId: string,
): { tenantArticleId: string; substitutes: JsonObject[] } {
  const line = job.pickLineItems.find((l) => l.id === lineItemId);
  if (!line) {
    throw new AppError("not_found", {
      code: "PICK_LINE_ITEM_NOT_FOUND",
      description: `Pick job ${job.id} has no pick line item ${JSON.stringify(lineItemId)}.`,
    });
  }
  const rank = (s: JsonObject) => (typeof s.priority === "number" ? s.priority : Number.POSITIVE_INFINITY);
  const substitutes = structuredClone(line.allowedSubstitutes ?? []).sort((a, b) => {
    const d = rank(a) - rank(b);
    return Number.isNaN(d) ? 0 : d;
  });
  return { tenantArticleId: line.article.tenantArticleId, substitutes };
}

/** One entry of `usersModificationHistory`: who changed the job, and when (`ctx.now`). */
export const historyEntry = (ctx: ActionContext) => ({
  modificationDate: ctx.now.toISOString(),
  userId: ctx.user.userId ?? ctx.user.username,
  username: ctx.user.username,
});
