/**
 * Seeds the notification scenarios in SQL (both targets the same, through their databases):
 *
 * - search-notifications: 5,000 stored CLIENT notifications, round robin over 10 facilities (500
 *   each), cycling through the 10 event kinds notification channels take, one a minute back from
 *   now (created spreads over ~3.5 days). Each is built by the service's own clientNotification
 *   (texts in every language, priority, entity links) and written by its own insertNotification
 *   (the derived category, status, priority, facility_ref and created columns included), as the
 *   dispatch consumer writes them.
 * - get-notification-config: the tenant's configuration with 10 channels (5 CLIENT, 5 EMAIL of 5
 *   receivers each, 4-6 events per channel), built by the service's own putConfig (as the first
 *   PUT builds it: channel ids, version 1) and written by its insertConfigIfAbsent. No channel takes
 *   PICK_JOB_CREATED, the one channel kind the bench's other scenarios emit: with it, every pick job
 *   they create would make the system (and not the baseline) store notifications.
 *
 * The service's statements name its tables unqualified (its role's search_path): the seed's admin
 * connection sets the same search_path for its transaction.
 */
import { NOTIFICATION_CHANNEL_EVENTS } from "@fop/contracts/event-kinds";
import { newId } from "@fop/kit/ids";
import {
  clientNotification,
  type EventSubject,
  insertConfigIfAbsent,
  insertNotification,
  putConfig,
  updateConfig,
} from "@fop/notifications";
import type pg from "pg";
import { BASELINE_TENANT } from "./baseline.ts";
import { unnamed } from "./baseline-sql.ts";
import type { Target } from "./requests.ts";
import { withDatabase } from "./seed-db.ts";

export interface NotificationSeed {
  /** The facility the search names (one of the 10). */
  facilityRef: string;
  /** Every facility the notifications are spread over. */
  facilities: string[];
}

const NOTIFICATIONS = 5000;
const FACILITIES = 10;
const CHANNELS = 10;
const RECEIVERS = 5;

/** What kind of entity each channel event is about (the reference's EntityLink types). */
const entityTypeOf = (event: string) =>
  event.startsWith("PICK_JOB_") ? "PICK_JOB" : event.startsWith("ROUTING_PLAN_") ? "ROUTING_PLAN" : "ORDER";

/** `fn` in one transaction on `target`'s database, with the notifications service's search_path. */
const inNotifications = (target: Target, fn: (db: pg.Client) => Promise<void>) =>
  withDatabase(target, async (db) => {
    await db.query("begin");
    await db.query("set local search_path = notifications, public");
    await fn(db);
    await db.query("commit");
  });

export async function seedNotifications(target: Target): Promise<NotificationSeed> {
  const facilities = Array.from({ length: FACILITIES }, () => newId());
  const channelId = newId();
  const now = Date.now();
  const notifications = Array.from({ length: NOTIFICATIONS }, (_, i) => {
    const event = NOTIFICATION_CHANNEL_EVENTS[i % NOTIFICATION_CHANNEL_EVENTS.length]!;
    const subject: EventSubject = {
      id: newId(),
      event,
      entityType: entityTypeOf(event),
      entityRef: newId(),
      facilityRef: facilities[i % FACILITIES]!,
      label: `BENCH-${i}`,
      doc: { tenantOrderId: `BENCH-${i}` },
    };
    return clientNotification(subject, channelId, { now: new Date(now - i * 60_000), newId });
  });
  await inNotifications(target, async (db) => {
    for (const n of notifications) await insertNotification(unnamed(db), BASELINE_TENANT, n);
  });
  await withDatabase(target, (db) => db.query("vacuum analyze notifications.notification"));
  return { facilityRef: facilities[0]!, facilities };
}

/** The body of the configuration's first PUT: 10 channels, alternately CLIENT and EMAIL. */
export function notificationConfigBody() {
  const events = NOTIFICATION_CHANNEL_EVENTS.filter((e) => e !== "PICK_JOB_CREATED");
  return {
    channels: Array.from({ length: CHANNELS }, (_, c) => {
      const take = 4 + (c % 3);
      const channelEvents = Array.from({ length: take }, (_, k) => events[(c + k) % events.length]!);
      return c % 2 === 0
        ? { type: "CLIENT", enabled: true, events: channelEvents }
        : {
            type: "EMAIL",
            enabled: true,
            events: channelEvents,
            receiver: Array.from({ length: RECEIVERS }, (_, r) => ({
              email: `bench-${c}-${r}@example.com`,
              language: r % 2 === 0 ? "en_US" : "de_DE",
            })),
          };
    }),
  };
}

/** The tenant's configuration (facility_ref ''), replaced if one is there already. */
export async function seedNotificationConfig(target: Target): Promise<undefined> {
  const config = putConfig(undefined, notificationConfigBody() as Parameters<typeof putConfig>[1], {
    now: new Date(),
    newId,
  });
  await inNotifications(target, async (db) => {
    if (!(await insertConfigIfAbsent(unnamed(db), BASELINE_TENANT, "", config)))
      await updateConfig(unnamed(db), BASELINE_TENANT, "", config);
  });
  return undefined;
}
