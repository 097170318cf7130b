/**
 * The notifications service's own events: NOTIFICATION_CENTER_CONFIG_CREATED / _UPDATED (entity
 * NOTIFICATION_CENTER_CONFIG, ref "<tenant>" or "<tenant>/<facility>") and SUBSCRIPTION_CREATED /
 * _DELETED, for the audit log. No payload: the configuration holds e-mail addresses, and a
 * subscription's headers may hold credentials.
 */
import type { DomainEvent } from "@fop/kit/events/envelope";
import type { NotificationConfig } from "../domain/config.ts";
import type { Subscription } from "../domain/subscription.ts";

export const configEvent = (
  change: "CREATED" | "UPDATED",
  tenant: string,
  facilityRef: string,
  c: NotificationConfig,
): DomainEvent => ({
  type: `NOTIFICATION_CENTER_CONFIG_${change}`,
  entityType: "NOTIFICATION_CENTER_CONFIG",
  entityRef: facilityRef ? `${tenant}/${facilityRef}` : tenant,
  entityVersion: c.version,
  entityCreated: new Date(c.created),
});

export const subscriptionEvent = (
  change: "CREATED" | "DELETED",
  s: Pick<Subscription, "id" | "created">,
): DomainEvent => ({
  type: `SUBSCRIPTION_${change}`,
  entityType: "SUBSCRIPTION",
  entityRef: s.id,
  entityVersion: 1,
  entityCreated: new Date(s.created),
});
