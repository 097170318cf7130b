/**
 * A stored notification (reference Notification): one per event and CLIENT channel, status OPEN,
 * with a category and priority per event kind, the texts in every language we write and links to
 * the entities it is about. Pure functions.
 */
import {
  ENTITY_LINK_TYPES,
  type NotificationCategory,
  type PriorityLabel,
} from "@fop/contracts/notifications";
import { type EventFacts, renderLocalized } from "./templates.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

/** Sequence per label (a higher one is more urgent), so priorities sort. */
export const PRIORITY_SEQUENCE: Record<PriorityLabel, number> = { LOW: 1, MEDIUM: 2, HIGH: 3 };

export const categoryOf = (event: string): NotificationCategory =>
  event.startsWith("PICK_JOB_") ? "FACILITY" : /ORDER|ROUTING_PLAN|REROUTE/.test(event) ? "ORDER" : "MISC";

const HIGH = new Set(["ROUTING_PLAN_NOT_ROUTABLE", "ORDER_FORCE_CANCELLED", "ORDER_CANCELLED_BY_EXPIRY"]);
const MEDIUM = new Set(["PICK_JOB_CREATED", "ORDER_CANCELLED", "UPCOMING_TIME_TRIGGERED_REROUTE"]);

export const priorityOf = (event: string): PriorityLabel =>
  HIGH.has(event) ? "HIGH" : MEDIUM.has(event) ? "MEDIUM" : "LOW";

/** The entity types the reference's EntityLink knows. */
const LINKABLE: ReadonlySet<string> = new Set(ENTITY_LINK_TYPES);

export interface EventSubject extends EventFacts {
  id: string;
  entityType: string;
  entityRef: string;
  /** The entity as the event carries it (its REST document), if any. */
  doc?: JsonObject | undefined;
}

export function entityLinks(e: EventSubject): JsonObject[] {
  const links: JsonObject[] = [];
  if (LINKABLE.has(e.entityType)) links.push({ ref: e.entityRef, type: e.entityType });
  if (e.facilityRef && e.entityType !== "FACILITY") links.push({ ref: e.facilityRef, type: "FACILITY" });
  for (const [field, type] of [
    ["orderRef", "ORDER"],
    ["processId", "PROCESS"],
    ["routingPlanRef", "ROUTING_PLAN"],
  ] as const) {
    const ref = e.doc?.[field];
    if (typeof ref === "string" && ref && !links.some((l) => l.ref === ref && l.type === type)) {
      links.push({ ref, type });
    }
  }
  return links;
}

export interface StoredNotification {
  id: string;
  eventId: string;
  channelId: string;
  facilityRef: string | undefined;
  doc: JsonObject;
}

export function clientNotification(e: EventSubject, channelId: string, c: ChangeContext): StoredNotification {
  const at = c.now.toISOString();
  const { title, message } = renderLocalized(e);
  const label = priorityOf(e.event);
  const id = c.newId();
  return {
    id,
    eventId: e.id,
    channelId,
    facilityRef: e.facilityRef,
    doc: {
      id,
      type: "CLIENT",
      category: categoryOf(e.event),
      status: "OPEN",
      priority: { label, sequence: PRIORITY_SEQUENCE[label] },
      event: e.event,
      payload: {
        title: title.en_US as string,
        titleLocalized: title,
        message: message.en_US as string,
        messageLocalized: message,
        entityLinks: entityLinks(e),
      },
      version: 1,
      created: at,
      lastModified: at,
    },
  };
}

/** What people call the entity: the tenant's order id, a short id, else its platform id. */
export function labelOf(entityRef: string, doc: JsonObject | undefined): string {
  for (const field of ["tenantOrderId", "shortId", "tenantFacilityId", "name"]) {
    const v = doc?.[field];
    if (typeof v === "string" && v) return v;
  }
  return entityRef;
}
