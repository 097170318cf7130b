/**
 * The notification center configuration (tenant-wide, or one facility's): channels that tell people
 * by e-mail or in the back-office client when one of the spec's event kinds happens. None until the
 * first PUT, which creates it without a version; later PUTs replace every channel on the version
 * they name; ADD_CHANNEL / UPDATE_CHANNEL change one channel, DELETE removes one, each versioned.
 * Channels get ids here (PUT replaces them all, so they get new ones). Pure functions.
 */

import { NOTIFICATION_CHANNEL_EVENTS } from "@fop/contracts/event-kinds";
import { SUPPORTED_LOCALES } from "@fop/contracts/locales";
import { CHANNEL_TYPES, type ChannelType } from "@fop/contracts/notifications";
import { invalid, notFound } from "@fop/kit/errors";
import { checkList, requireCurrentVersion } from "@fop/kit/validation";
import type { ChangeContext, JsonObject } from "./types.ts";

export const CONFIG_LIMITS = {
  /** Channels per configuration (reference maxItems). */
  channels: 100,
  /** Events per channel (spec). */
  events: 50,
  /** Receivers per e-mail channel (spec). */
  receivers: 200,
} as const;

export interface EmailReceiver {
  email: string;
  language: string;
}

export interface Channel {
  id: string;
  type: ChannelType;
  enabled: boolean;
  events: string[];
  receiver?: EmailReceiver[];
}

export interface NotificationConfig {
  channels: Channel[];
  version: number;
  created: string;
  lastModified: string;
}

/** An address as the platform's `format: email` accepts it (a practical subset of RFC 5322). */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

function checkEvents(list: unknown, field: string): string[] {
  const events = checkList(list, CONFIG_LIMITS.events, field, 0) ?? [];
  if (list === undefined || list === null)
    throw invalid("EVENTS_REQUIRED", `${field.slice(1)} is required.`, field);
  const seen = new Set<string>();
  events.forEach((e, i) => {
    if (typeof e !== "string" || !(NOTIFICATION_CHANNEL_EVENTS as readonly string[]).includes(e)) {
      throw invalid(
        "UNKNOWN_EVENT",
        `${field.slice(1)}/${i} must be one of ${NOTIFICATION_CHANNEL_EVENTS.join(", ")}.`,
        `${field}/${i}`,
      );
    }
    if (seen.has(e)) throw invalid("DUPLICATE_EVENT", `${field.slice(1)} names ${e} twice.`, `${field}/${i}`);
    seen.add(e);
  });
  return events as string[];
}

function checkReceivers(list: unknown, field: string): EmailReceiver[] {
  if (list === undefined || list === null)
    throw invalid("RECEIVER_REQUIRED", `${field.slice(1)} is required for an EMAIL channel.`, field);
  const receivers = checkList(list, CONFIG_LIMITS.receivers, field) ?? [];
  const seen = new Set<string>();
  return receivers.map((r, i) => {
    const at = `${field}/${i}`;
    if (!isObject(r)) throw invalid("INVALID_VALUE", `${at.slice(1)} must be an object.`, at);
    if (typeof r.email !== "string" || r.email.length > 320 || !EMAIL.test(r.email)) {
      throw invalid("INVALID_EMAIL", `${at.slice(1)}/email must be an e-mail address.`, `${at}/email`);
    }
    if (typeof r.language !== "string" || !(SUPPORTED_LOCALES as readonly string[]).includes(r.language)) {
      throw invalid(
        "INVALID_LANGUAGE",
        `${at.slice(1)}/language must be a SupportedLocale (${SUPPORTED_LOCALES.join(", ")}).`,
        `${at}/language`,
      );
    }
    // One address once: two entries for it would send every mail twice.
    const key = r.email.toLowerCase();
    if (seen.has(key)) {
      throw invalid("DUPLICATE_RECEIVER", `${field.slice(1)} names ${r.email} twice.`, `${at}/email`);
    }
    seen.add(key);
    return { email: r.email, language: r.language };
  });
}

/** One channel of a request (`id` given: UPDATE_CHANNEL's read variant; else a new id). */
export function parseChannel(value: unknown, field: string, id: string): Channel {
  if (!isObject(value))
    throw invalid("CHANNEL_REQUIRED", `${field.slice(1)} must be a channel object.`, field);
  const type = value.type as ChannelType;
  if (!CHANNEL_TYPES.includes(type)) {
    const one = CHANNEL_TYPES.join(" or ");
    throw invalid("INVALID_CHANNEL_TYPE", `${field.slice(1)}/type must be ${one}.`, `${field}/type`);
  }
  if (typeof value.enabled !== "boolean") {
    throw invalid(
      "ENABLED_REQUIRED",
      `${field.slice(1)}/enabled is required (true or false).`,
      `${field}/enabled`,
    );
  }
  const channel: Channel = {
    id,
    type,
    enabled: value.enabled,
    events: checkEvents(value.events, `${field}/events`),
  };
  if (type === "EMAIL") channel.receiver = checkReceivers(value.receiver, `${field}/receiver`);
  return channel;
}

function parseChannels(list: unknown, c: ChangeContext): Channel[] {
  if (list === undefined || list === null)
    throw invalid("CHANNELS_REQUIRED", "channels is required.", "/channels");
  const channels = checkList(list, CONFIG_LIMITS.channels, "/channels") ?? [];
  return channels.map((ch, i) => parseChannel(ch, `/channels/${i}`, c.newId()));
}

/**
 * PUT: without a current configuration it is created (a `version` in the body is ignored: nothing
 * to be stale against); otherwise every channel is replaced on the version the body names.
 */
export function putConfig(
  current: NotificationConfig | undefined,
  body: JsonObject,
  c: ChangeContext,
): NotificationConfig {
  if (current) requireCurrentVersion("notification center configuration", current, body.version);
  const at = c.now.toISOString();
  return {
    channels: parseChannels(body.channels, c),
    version: current ? current.version + 1 : 1,
    created: current?.created ?? at,
    lastModified: at,
  };
}

/** ADD_CHANNEL / UPDATE_CHANNEL on the version the action names. */
export function applyAction(
  current: NotificationConfig,
  action: JsonObject,
  c: ChangeContext,
): NotificationConfig {
  const name = action.name;
  if (name !== "ADD_CHANNEL" && name !== "UPDATE_CHANNEL") {
    throw invalid("UNKNOWN_ACTION", "name must be ADD_CHANNEL or UPDATE_CHANNEL.", "/name");
  }
  requireCurrentVersion("notification center configuration", current, action.version);
  let channels: Channel[];
  if (name === "ADD_CHANNEL") {
    if (current.channels.length >= CONFIG_LIMITS.channels) {
      throw invalid(
        "LIMIT_EXCEEDED",
        `channels holds at most ${CONFIG_LIMITS.channels} entries (${current.channels.length} already).`,
        "/channel",
      );
    }
    channels = [...current.channels, parseChannel(action.channel, "/channel", c.newId())];
  } else {
    const id = isObject(action.channel) ? action.channel.id : undefined;
    if (typeof id !== "string" || id === "") {
      throw invalid("CHANNEL_ID_REQUIRED", "channel/id must name the channel to update.", "/channel/id");
    }
    const at = current.channels.findIndex((ch) => ch.id === id);
    if (at < 0) throw notFound("notification channel", id);
    channels = current.channels.map((ch, i) =>
      i === at ? parseChannel(action.channel, "/channel", id) : ch,
    );
  }
  return { ...current, channels, version: current.version + 1, lastModified: c.now.toISOString() };
}

/** DELETE .../channels/{channelId}?version=: the version is required. */
export function deleteChannel(
  current: NotificationConfig,
  channelId: string,
  version: unknown,
  c: ChangeContext,
): NotificationConfig {
  requireCurrentVersion("notification center configuration", current, version);
  if (!current.channels.some((ch) => ch.id === channelId)) throw notFound("notification channel", channelId);
  return {
    ...current,
    channels: current.channels.filter((ch) => ch.id !== channelId),
    version: current.version + 1,
    lastModified: c.now.toISOString(),
  };
}

/** The enabled channels of `configs` that take `event`. */
export const channelsFor = (configs: readonly NotificationConfig[], event: string): Channel[] =>
  configs.flatMap((cfg) => cfg.channels.filter((ch) => ch.enabled && ch.events.includes(event)));
