/**
 * The notifications service's own events: NOTIFICATION_CENTER_CONFIG_CREATED / _UPDATED (entity
 * NOTIFICATION_CENTER_CONFIG, ref "<tenant>" or "<tenant>/<facility>") and SUBSCRIPTION_CREATED /
 * _DELETED, for the audit log. No payload: the configuration holds e-mail addresses, and a
 * subscription's headers may hold credentials.
 */
import { type DomainEvent, entityEvent } from "@fop/kit/events/envelope";
import type { NotificationConfig } from "../domain/config.ts";
import type { Subscription } from "../domain/subscription.ts";

export const configEvent = (
  change: "CREATED" | "UPDATED",
  tenant: string,
  facilityRef: string,
  c: NotificationConfig,
): DomainEvent =>
  entityEvent(`NOTIFICATION_CENTER_CONFIG_${change}`, "NOTIFICATION_CENTER_CONFIG", {
    id: facilityRef ? `${tenant}/${facilityRef}` : tenant,
    version: c.version,
    created: c.created,
  });

export const subscriptionEvent = (
  change: "CREATED" | "DELETED",
  s: Pick<Subscription, "id" | "created">,
): DomainEvent =>
  entityEvent(`SUBSCRIPTION_${change}`, "SUBSCRIPTION", { id: s.id, version: 1, created: s.created });
