/**
 * What an event becomes (the dispatch consumer, in the transaction that records the event id):
 * a webhook delivery per subscription to its kind; and, for the kinds notification channels take,
 * per enabled channel of the tenant's configuration and of the event's facility's: a stored CLIENT
 * notification (pushed live after commit) or an e-mail delivery per receiver in their language.
 * An event the interest index says the tenant does not want never gets here: the consumer's
 * `accepts` acknowledges it from its subject and tenant header, before decoding it.
 */

import { NOTIFICATION_CHANNEL_EVENTS, subscribedKindsOf } from "@fop/contracts/event-kinds";
import type { Db } from "@fop/kit/db/sql";
import { whenCommitted } from "@fop/kit/db/sql";
import { fromTimestamp } from "@fop/kit/rpc/proto";
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import {
  insertDeliveries,
  insertNotification,
  loadConfigsFor,
  type NewDelivery,
  subscriptionsFor,
} from "../db/rows.ts";
import { channelsFor } from "../domain/config.ts";
import { webhookBody } from "../domain/delivery.ts";
import { clientNotification, type EventSubject, labelOf } from "../domain/notification.ts";
import { renderEmail } from "../domain/templates.ts";
import type { JsonObject } from "../domain/types.ts";
import { eventDocument, eventFacility } from "../events/payload.ts";
import type { NotificationsDeps } from "./deps.ts";

const CHANNEL_EVENTS = new Set<string>(NOTIFICATION_CHANNEL_EVENTS);

export async function dispatchEvent(deps: NotificationsDeps, tx: Db, event: EventEnvelope): Promise<void> {
  const tenant = event.tenant;
  const deliveries: NewDelivery[] = [];
  const subscriptions = await subscriptionsFor(tx, tenant, subscribedKindsOf(event.type));
  const wanted = subscriptions.length > 0 || CHANNEL_EVENTS.has(event.type);
  // Most events interest nobody here: their entity is decoded only for those that do.
  if (!wanted) return;
  const doc = eventDocument(event);

  if (subscriptions.length > 0) {
    const occurred = event.occurredAt ? fromTimestamp(event.occurredAt) : deps.now();
    for (const s of subscriptions) {
      // Under the kind subscribed to: a platform alias (ITEM_RETURN_JOB_UPDATED) names itself.
      const body = webhookBody({
        event: s.event,
        eventId: event.id,
        occurredAt: occurred.toISOString(),
        payload: doc ?? { id: event.entityRef, entityType: event.entityType },
      }) as JsonObject;
      const target = s.doc.target as { callbackUrl: string };
      deliveries.push({
        tenant,
        kind: "WEBHOOK",
        targetId: s.id,
        eventId: event.id,
        event: s.event,
        recipient: target.callbackUrl,
        payload: body,
      });
    }
  }

  if (CHANNEL_EVENTS.has(event.type)) {
    const facilityRef = eventFacility(event, doc);
    const channels = channelsFor(await loadConfigsFor(tx, tenant, facilityRef), event.type);
    const subject: EventSubject = {
      id: event.id,
      event: event.type,
      entityType: event.entityType,
      entityRef: event.entityRef,
      facilityRef,
      label: labelOf(event.entityRef, doc),
      doc,
    };
    const live: unknown[] = [];
    for (const ch of channels) {
      if (ch.type === "CLIENT") {
        const n = clientNotification(subject, ch.id, { now: deps.now(), newId: deps.newId });
        if (await insertNotification(tx, tenant, n)) live.push(n.doc);
      } else if (deps.emailEnabled) {
        for (const r of ch.receiver ?? []) {
          deliveries.push({
            tenant,
            kind: "EMAIL",
            targetId: ch.id,
            eventId: event.id,
            event: event.type,
            recipient: r.email,
            payload: renderEmail(subject, r.language),
          });
        }
      }
    }
    if (live.length) {
      whenCommitted(tx, () => {
        for (const d of live) deps.publishLive(tenant, d);
      });
    }
  }

  if ((await insertDeliveries(tx, deliveries, deps.newId)) > 0) whenCommitted(tx, deps.wakeDelivery);
}
