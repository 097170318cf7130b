/** The notification center's enumerations, in the reference's order. */

/** A notification channel's (and a notification's) `type`. */
export const CHANNEL_TYPES = ["EMAIL", "CLIENT"] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** A notification's `category`. */
export const NOTIFICATION_CATEGORIES = ["ORDER", "FACILITY", "MISC"] as const;
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** A notification's `status`. */
export const NOTIFICATION_STATUSES = ["OPEN", "FINISHED"] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/** A notification's `priority.label` (NotificationPriority). */
export const PRIORITY_LABELS = ["LOW", "MEDIUM", "HIGH"] as const;
export type PriorityLabel = (typeof PRIORITY_LABELS)[number];

/** The entity types an EntityLink of a notification's payload names. */
export const ENTITY_LINK_TYPES = ["ORDER", "FACILITY", "ROUTING_PLAN", "PROCESS", "PICK_JOB"] as const;
export type EntityLinkType = (typeof ENTITY_LINK_TYPES)[number];
