/** Webhook subscriptions: list, create (the secret shown once), get, delete, dead letters. */
import { randomBytes } from "node:crypto";
import { eventTypesReaching } from "@fop/contracts/event-kinds";
import type { RequestContext } from "@fop/kit/context";
import { whenCommitted } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import {
  countSubscriptions,
  deleteSubscription,
  insertSubscription,
  listDeadLetters,
  listSubscriptions,
  loadSubscription,
  lockSubscriptionEvent,
} from "../db/rows.ts";
import { newSubscription, SUBSCRIPTION_LIMITS, subscriptionDoc } from "../domain/subscription.ts";
import type { JsonObject } from "../domain/types.ts";
import { subscriptionEvent } from "../events/notifications.events.ts";
import type { NotificationsDeps } from "./deps.ts";
import { dispatchLanes } from "./interest-index.ts";

/** A Standard Webhooks secret: whsec_ + base64 of 24 random bytes. */
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

export const secretBinding = (tenant: string, id: string) => [tenant, id] as const;

export async function createSubscription(deps: NotificationsDeps, ctx: RequestContext, body: JsonObject) {
  // The URL's syntax and literal address first, then what its name resolves to (both SSRF rules).
  const url = (body.target as JsonObject | undefined)?.callbackUrl ?? body.callbackUrl;
  const resolved = typeof url === "string" ? await deps.checkCallbackUrl(url) : undefined;
  const sub = newSubscription(body, { now: deps.now(), newId: deps.newId }, () => resolved);
  const secret = newSecret();
  const doc = subscriptionDoc(sub);
  await inTransaction(deps.db, async (tx) => {
    await deps.dispatch.cover(tx, dispatchLanes(eventTypesReaching(sub.event)));
    await lockSubscriptionEvent(tx, ctx.tenant, sub.event);
    if ((await countSubscriptions(tx, ctx.tenant, sub.event)) >= SUBSCRIPTION_LIMITS.perEvent) {
      throw invalid(
        "LIMIT_EXCEEDED",
        `At most ${SUBSCRIPTION_LIMITS.perEvent} subscriptions per event; ${sub.event} has them already.`,
        "/event",
      );
    }
    await insertSubscription(
      tx,
      ctx.tenant,
      sub,
      deps.secrets.seal(secretBinding(ctx.tenant, sub.id), secret),
      doc,
    );
    await deps.outbox.record(tx, ctx, [subscriptionEvent("CREATED", sub)]);
    whenCommitted(tx, deps.interest.invalidate);
  });
  return { ...doc, secret };
}

async function existing(deps: NotificationsDeps, ctx: RequestContext, id: string) {
  const row = isUuid(id) ? await loadSubscription(deps.db, ctx.tenant, id) : undefined;
  if (!row) throw notFound("subscription", id);
  return row;
}

export const getSubscription = async (deps: NotificationsDeps, ctx: RequestContext, id: string) =>
  (await existing(deps, ctx, id)).doc;

export const listTenantSubscriptions = (deps: NotificationsDeps, ctx: RequestContext, size: number) =>
  listSubscriptions(deps.db, ctx.tenant, size);

export async function removeSubscription(deps: NotificationsDeps, ctx: RequestContext, id: string) {
  await inTransaction(deps.db, async (tx) => {
    const row = isUuid(id) ? await loadSubscription(tx, ctx.tenant, id) : undefined;
    if (!row || !(await deleteSubscription(tx, ctx.tenant, id))) throw notFound("subscription", id);
    await deps.outbox.record(tx, ctx, [
      subscriptionEvent("DELETED", { id, created: String(row.doc.created) }),
    ]);
    whenCommitted(tx, deps.interest.invalidate);
  });
}

export async function deadLetters(deps: NotificationsDeps, ctx: RequestContext, id: string, size: number) {
  await existing(deps, ctx, id);
  return listDeadLetters(deps.db, ctx.tenant, id, size);
}
