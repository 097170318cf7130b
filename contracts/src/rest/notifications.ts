/**
 * Notification center schemas, matching the reference (NotificationCenterConfig, AddChannelAction,
 * UpdateChannelByIdAction, Notification, NotificationSearchPayload, ...).
 */

import { Type } from "@sinclair/typebox";
import { NOTIFICATION_CHANNEL_EVENTS } from "../event-kinds.ts";
import { SUPPORTED_LOCALES } from "../locales.ts";
import {
  CHANNEL_TYPES,
  ENTITY_LINK_TYPES,
  NOTIFICATION_CATEGORIES,
  NOTIFICATION_STATUSES,
  PRIORITY_LABELS,
} from "../notifications.ts";
import {
  DateTime,
  Filters,
  OneOf,
  opt,
  PageInfo,
  SearchPayload,
  SearchQuery,
  SortEntry,
  StringEnum,
} from "./common.ts";

const SupportedLocale = StringEnum(SUPPORTED_LOCALES, {
  description: "ISO 3166 conform country code and ISO 639-1 conform language code (de_DE, en_US, ...)",
});
const Events = Type.Array(
  StringEnum(NOTIFICATION_CHANNEL_EVENTS, { description: "An event kind a channel can subscribe to" }),
  {
    maxItems: 50,
    uniqueItems: true,
    description: `Supported events: ${NOTIFICATION_CHANNEL_EVENTS.join(", ")}`,
  },
);
const EmailReceiver = Type.Object(
  { email: Type.String({ format: "email", maxLength: 320 }), language: SupportedLocale },
  { title: "EmailReceiver" },
);
const Receivers = Type.Array(EmailReceiver, {
  maxItems: 200,
  uniqueItems: true,
  description: "Up to 200 receivers; an address at most once",
});
const Version = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: "The version the change is based on",
});
const ChannelId = Type.String({ minLength: 1, maxLength: 256 });

const EmailChannelForCreation = Type.Object(
  { type: Type.Literal("EMAIL"), enabled: Type.Boolean(), events: Events, receiver: Receivers },
  { title: "EmailNotificationChannelForCreation" },
);
const ClientChannelForCreation = Type.Object(
  { type: Type.Literal("CLIENT"), enabled: Type.Boolean(), events: Events },
  { title: "ClientNotificationChannelForCreation" },
);
const EmailChannel = Type.Object(
  {
    id: ChannelId,
    type: Type.Literal("EMAIL"),
    enabled: Type.Boolean(),
    events: Events,
    receiver: Receivers,
  },
  { title: "EmailNotificationChannel" },
);
const ClientChannel = Type.Object(
  { id: ChannelId, type: Type.Literal("CLIENT"), enabled: Type.Boolean(), events: Events },
  { title: "ClientNotificationChannel" },
);
const ChannelForCreation = OneOf("type", [EmailChannelForCreation, ClientChannelForCreation]);
const Channel = OneOf("type", [EmailChannel, ClientChannel]);

export const NotificationCenterConfig = Type.Object(
  {
    channels: Type.Array(Channel, { maxItems: 100 }),
    version: Type.Number(),
    created: DateTime(),
    lastModified: DateTime(),
  },
  { title: "NotificationCenterConfig" },
);

export const NotificationCenterConfigForUpsert = Type.Object(
  {
    channels: Type.Array(ChannelForCreation, { maxItems: 100 }),
    version: opt(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          "Required once the configuration exists (NotificationCenterConfigForUpdate); left out to create it",
      }),
    ),
  },
  {
    title: "NotificationCenterConfigForUpsert",
    description:
      "The reference's NotificationCenterConfigForCreation or NotificationCenterConfigForUpdate. Without version: creates the configuration (201). With the current version: replaces every channel (200).",
  },
);

export const NotificationCenterConfigAction = OneOf(
  "name",
  [
    Type.Object(
      { name: Type.Literal("ADD_CHANNEL"), channel: ChannelForCreation, version: Version },
      { title: "AddChannelAction" },
    ),
    Type.Object(
      { name: Type.Literal("UPDATE_CHANNEL"), channel: Channel, version: Version },
      { title: "UpdateChannelByIdAction" },
    ),
  ],
  { title: "NotificationCenterConfigAction" },
);

export const ChannelParams = Type.Object({ channelId: Type.String({ minLength: 1, maxLength: 256 }) });
// A facility's configuration needs a facility: an empty ref is not the tenant's configuration.
const FacilityRef = Type.String({ minLength: 1, maxLength: 512 });
export const FacilityParams = Type.Object({ facilityRef: FacilityRef });
export const FacilityChannelParams = Type.Object({
  facilityRef: FacilityRef,
  channelId: Type.String({ minLength: 1, maxLength: 256 }),
});
export const DeleteChannelQuery = Type.Object({
  version: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: "The configuration's current version (required)",
  }),
});

const NotificationCategory = StringEnum(NOTIFICATION_CATEGORIES);
const NotificationStatus = StringEnum(NOTIFICATION_STATUSES);
const PriorityLabel = StringEnum(PRIORITY_LABELS);
const Localized = Type.Record(Type.String(), Type.String());

export const Notification = Type.Object(
  {
    id: Type.String(),
    type: StringEnum(CHANNEL_TYPES),
    category: NotificationCategory,
    status: NotificationStatus,
    priority: Type.Object(
      { label: PriorityLabel, sequence: Type.Number() },
      { title: "NotificationPriority" },
    ),
    event: Type.String(),
    payload: Type.Object(
      {
        title: opt(Type.String()),
        titleLocalized: opt(Localized),
        subject: opt(Type.String()),
        subjectLocalized: opt(Localized),
        message: opt(Type.String()),
        messageLocalized: Localized,
        entityLinks: Type.Array(
          Type.Object(
            {
              ref: Type.String(),
              type: StringEnum(ENTITY_LINK_TYPES),
            },
            { title: "EntityLink" },
          ),
        ),
      },
      { title: "NotificationPayload" },
    ),
    version: Type.Number(),
    created: DateTime(),
    lastModified: DateTime(),
  },
  { title: "Notification" },
);

export const NotificationSearchPayload = SearchPayload(
  "NotificationSearchPayload",
  SearchQuery("NotificationSearchQuery", {
    category: Filters.EnumFilter(NOTIFICATION_CATEGORIES),
    created: Filters.DateFilter,
    facilityRef: Filters.StringFilter,
    priority: Type.Object(
      {
        label: opt(Filters.EnumFilter(PRIORITY_LABELS)),
        sequence: opt(Filters.NumberFilter),
      },
      { additionalProperties: false, title: "NotificationPriorityFilter" },
    ),
    status: Filters.EnumFilter(NOTIFICATION_STATUSES),
  }),
  SortEntry("NotificationSort", ["created", "status"]),
);

export const NotificationPaginatedResult = Type.Object(
  { notifications: Type.Array(Notification), pageInfo: PageInfo, total: opt(Type.Number()) },
  { title: "NotificationPaginatedResult" },
);
