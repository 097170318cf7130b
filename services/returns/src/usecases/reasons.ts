/** Reason use cases (cancelation reasons, reroute descriptions). */
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import {
  deleteReason as deleteRow,
  insertReasonIfNew,
  listReasons as listRows,
  loadReason,
  loadReasonByText,
  updateReason,
} from "../db/rows.ts";
import { createReason as create, modifyReason } from "../domain/reason.ts";
import type { JsonObject, Reason, ReasonAction } from "../domain/types.ts";
import { reasonEvent } from "../events/returns.events.ts";
import type { ReturnsDeps } from "./deps.ts";

const label = (a: ReasonAction) => (a === "CANCELATION" ? "cancelation reason" : "reroute description");
const ctxOf = (deps: ReturnsDeps) => ({ now: deps.now(), newId: deps.newId });
const textTaken = (r: { reason: string }) => () =>
  conflict("REASON_EXISTS", `A reason with the text ${JSON.stringify(r.reason)} exists already.`, "/reason");

async function requireReason(
  db: ReturnsDeps["db"] | Parameters<typeof loadReason>[0],
  ctx: RequestContext,
  action: ReasonAction,
  id: string,
  lock: boolean,
) {
  const r = isUuid(id) ? await loadReason(db, ctx.tenant, action, id, lock) : undefined;
  if (!r) throw notFound(label(action), id);
  return r;
}

/** POST: the new reason (created), or the kind's reason with the same text (not created: 303). */
export async function createReason(
  deps: ReturnsDeps,
  ctx: RequestContext,
  action: ReasonAction,
  body: JsonObject,
): Promise<{ reason: Reason; created: boolean }> {
  const fresh = create(action, body, ctxOf(deps));
  return inTransaction(deps.db, async (tx) => {
    if (await insertReasonIfNew(tx, ctx.tenant, fresh)) {
      await deps.outbox.record(tx, ctx, [reasonEvent("CREATED", fresh)]);
      return { reason: fresh, created: true };
    }
    const existing = await loadReasonByText(tx, ctx.tenant, action, fresh.reason);
    if (!existing) throw textTaken(fresh)();
    return { reason: existing, created: false };
  });
}

export const getReason = (deps: ReturnsDeps, ctx: RequestContext, action: ReasonAction, id: string) =>
  requireReason(deps.db, ctx, action, id, false);

export async function listReasons(
  deps: ReturnsDeps,
  ctx: RequestContext,
  action: ReasonAction,
  page: { size: number; startAfterId: string },
) {
  if (page.startAfterId && !isUuid(page.startAfterId)) {
    throw invalid("INVALID_ID", `startAfterId must be a ${label(action)} id.`, "startAfterId");
  }
  return listRows(deps.db, ctx.tenant, action, page);
}

/** PUT: text replaced on the version the body names; 409 when another reason has the new text. */
export async function putReason(
  deps: ReturnsDeps,
  ctx: RequestContext,
  action: ReasonAction,
  id: string,
  body: JsonObject,
): Promise<Reason> {
  return inTransaction(
    deps.db,
    async (tx) => {
      const next = modifyReason(await requireReason(tx, ctx, action, id, true), body, ctxOf(deps));
      await updateReason(tx, ctx.tenant, next);
      await deps.outbox.record(tx, ctx, [reasonEvent("UPDATED", next)]);
      return next;
    },
    { reason_text_key: textTaken({ reason: String(body.reason) }) },
  );
}

export async function deleteReason(deps: ReturnsDeps, ctx: RequestContext, action: ReasonAction, id: string) {
  await inTransaction(deps.db, async (tx) => {
    const r = await requireReason(tx, ctx, action, id, true);
    await deleteRow(tx, ctx.tenant, r.id);
    await deps.outbox.record(tx, ctx, [reasonEvent("DELETED", r)]);
  });
}
