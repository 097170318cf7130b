import { NOTIFICATION_CHANNEL_EVENTS } from "@fop/contracts/event-kinds";
import { describe, expect, it } from "vitest";
import {
  applyAction,
  type Channel,
  CONFIG_LIMITS,
  channelsFor,
  deleteChannel,
  type NotificationConfig,
  putConfig,
} from "./config.ts";
import type { ChangeContext, JsonObject } from "./types.ts";

const T0 = "2026-11-25T10:00:00.000Z";
const T1 = "2026-11-26T10:00:00.000Z";

/** A context whose ids count up from `id-1`. */
function ctx(now = T0): ChangeContext {
  let n = 0;
  return { now: new Date(now), newId: () => `id-${++n}` };
}

const client = (events: string[] = ["PICK_JOB_CREATED"], enabled = true): JsonObject => ({
  type: "CLIENT",
  enabled,
  events,
});
const email = (
  receiver: JsonObject[] = [{ email: "a@example.com", language: "de_DE" }],
  events = ["ORDER_CANCELLED"],
) => ({
  type: "EMAIL",
  enabled: true,
  events,
  receiver,
});

const receivers = (n: number): JsonObject[] =>
  Array.from({ length: n }, (_, i) => ({ email: `r${i}@example.com`, language: "en_US" }));

/** What `f` throws (fails the test when it throws nothing). */
function thrown(f: () => unknown): Record<string, unknown> {
  try {
    f();
  } catch (e) {
    return e as Record<string, unknown>;
  }
  throw new Error("expected an error");
}

const invalidAt = (field: string, code?: string) =>
  expect.objectContaining({ kind: "invalid", field, ...(code ? { code } : {}) });

const created = () => putConfig(undefined, { channels: [client(), email()] }, ctx());

describe("putConfig", () => {
  it("creates version 1 without a version (one in the body is ignored), ids assigned, created = lastModified = now", () => {
    const cfg = putConfig(undefined, { channels: [client(), email()] }, ctx());
    expect(cfg).toEqual({
      channels: [
        { id: "id-1", type: "CLIENT", enabled: true, events: ["PICK_JOB_CREATED"] },
        {
          id: "id-2",
          type: "EMAIL",
          enabled: true,
          events: ["ORDER_CANCELLED"],
          receiver: [{ email: "a@example.com", language: "de_DE" }],
        },
      ],
      version: 1,
      created: T0,
      lastModified: T0,
    });
    expect(putConfig(undefined, { version: 7, channels: [] }, ctx())).toMatchObject({
      version: 1,
      channels: [],
    });
  });

  it("replaces every channel on the current version: version + 1, created kept, new ids", () => {
    const first = created();
    const next = putConfig(
      first,
      { version: 1, channels: [client(["ORDER_MODIFIED"], false)] },
      { now: new Date(T1), newId: () => "new" },
    );
    expect(next).toEqual({
      channels: [{ id: "new", type: "CLIENT", enabled: false, events: ["ORDER_MODIFIED"] }],
      version: 2,
      created: T0,
      lastModified: T1,
    });
  });

  it("refuses a stale version (409 version_conflict) and a missing one (400 VERSION_REQUIRED)", () => {
    const first = created();
    expect(thrown(() => putConfig(first, { version: 0, channels: [] }, ctx(T1)))).toMatchObject({
      kind: "version_conflict",
      requestVersion: 0,
      version: 1,
    });
    expect(thrown(() => putConfig(first, { version: 2, channels: [] }, ctx(T1)))).toMatchObject({
      kind: "version_conflict",
    });
    expect(thrown(() => putConfig(first, { channels: [] }, ctx(T1)))).toMatchObject({
      kind: "invalid",
      code: "VERSION_REQUIRED",
      field: "/version",
    });
    expect(thrown(() => putConfig(first, { version: "1", channels: [] }, ctx(T1)))).toMatchObject({
      code: "VERSION_REQUIRED",
    });
  });

  it("requires channels as a list", () => {
    expect(thrown(() => putConfig(undefined, {}, ctx()))).toEqual(
      invalidAt("/channels", "CHANNELS_REQUIRED"),
    );
    expect(thrown(() => putConfig(undefined, { channels: null }, ctx()))).toEqual(
      invalidAt("/channels", "CHANNELS_REQUIRED"),
    );
    expect(thrown(() => putConfig(undefined, { channels: {} }, ctx()))).toEqual(
      invalidAt("/channels", "INVALID_VALUE"),
    );
    expect(thrown(() => putConfig(undefined, { channels: ["x"] }, ctx()))).toEqual(
      invalidAt("/channels/0", "CHANNEL_REQUIRED"),
    );
  });

  it(`accepts ${CONFIG_LIMITS.channels} channels and refuses ${CONFIG_LIMITS.channels + 1}`, () => {
    expect(CONFIG_LIMITS.channels).toBe(100);
    const cfg = putConfig(undefined, { channels: Array.from({ length: 100 }, () => client()) }, ctx());
    expect(cfg.channels).toHaveLength(100);
    expect(new Set(cfg.channels.map((ch) => ch.id)).size).toBe(100);
    expect(
      thrown(() => putConfig(undefined, { channels: Array.from({ length: 101 }, () => client()) }, ctx())),
    ).toEqual(invalidAt("/channels", "LIMIT_EXCEEDED"));
  });

  it("takes every one of the 10 event kinds once; duplicates are refused naming the index; 51 entries exceed the limit", () => {
    expect(CONFIG_LIMITS.events).toBe(50);
    expect(NOTIFICATION_CHANNEL_EVENTS).toHaveLength(10);
    const all = [...NOTIFICATION_CHANNEL_EVENTS];
    const cfg = putConfig(undefined, { channels: [client(), client(all)] }, ctx());
    expect(cfg.channels[1]?.events).toEqual(all);
    // 50 entries can only be 10 kinds repeated: the first repeat is refused.
    const fifty = Array.from({ length: 50 }, (_, i) => all[i % 10] as string);
    expect(thrown(() => putConfig(undefined, { channels: [client(), client(fifty)] }, ctx()))).toEqual(
      invalidAt("/channels/1/events/10", "DUPLICATE_EVENT"),
    );
    expect(
      thrown(() =>
        putConfig(
          undefined,
          { channels: [client(["ORDER_CANCELLED", "ORDER_MODIFIED", "ORDER_CANCELLED"])] },
          ctx(),
        ),
      ),
    ).toEqual(invalidAt("/channels/0/events/2", "DUPLICATE_EVENT"));
    const fiftyOne = Array.from({ length: 51 }, (_, i) => all[i % 10] as string);
    expect(thrown(() => putConfig(undefined, { channels: [client(fiftyOne)] }, ctx()))).toEqual(
      invalidAt("/channels/0/events", "LIMIT_EXCEEDED"),
    );
  });

  it("refuses an unknown event kind naming its index", () => {
    expect(
      thrown(() => putConfig(undefined, { channels: [client(["ORDER_CANCELLED", "ORDER_CREATED"])] }, ctx())),
    ).toEqual(invalidAt("/channels/0/events/1", "UNKNOWN_EVENT"));
    expect(thrown(() => putConfig(undefined, { channels: [client(["order_cancelled"])] }, ctx()))).toEqual(
      invalidAt("/channels/0/events/0", "UNKNOWN_EVENT"),
    );
    expect(
      thrown(() =>
        putConfig(undefined, { channels: [{ type: "CLIENT", enabled: true, events: [3] }] }, ctx()),
      ),
    ).toEqual(invalidAt("/channels/0/events/0", "UNKNOWN_EVENT"));
  });

  it(`accepts ${CONFIG_LIMITS.receivers} receivers and refuses ${CONFIG_LIMITS.receivers + 1}`, () => {
    expect(CONFIG_LIMITS.receivers).toBe(200);
    const cfg = putConfig(undefined, { channels: [email(receivers(200))] }, ctx());
    expect(cfg.channels[0]?.receiver).toHaveLength(200);
    expect(
      thrown(() => putConfig(undefined, { channels: [client(), email(receivers(201))] }, ctx())),
    ).toEqual(invalidAt("/channels/1/receiver", "LIMIT_EXCEEDED"));
  });

  it("refuses a bad e-mail address, a language that is no SupportedLocale and a duplicate receiver (case-insensitive)", () => {
    for (const bad of ["", "no-at-sign", "a@b", "a b@example.com", "a@-example.com", 42]) {
      expect(
        thrown(() => putConfig(undefined, { channels: [email([{ email: bad, language: "en_US" }])] }, ctx())),
      ).toEqual(invalidAt("/channels/0/receiver/0/email", "INVALID_EMAIL"));
    }
    for (const bad of ["en", "de-DE", "xx_XX", "", undefined]) {
      const r: JsonObject = { email: "a@example.com" };
      if (bad !== undefined) r.language = bad;
      expect(thrown(() => putConfig(undefined, { channels: [email([r])] }, ctx()))).toEqual(
        invalidAt("/channels/0/receiver/0/language", "INVALID_LANGUAGE"),
      );
    }
    expect(
      thrown(() =>
        putConfig(
          undefined,
          {
            channels: [
              email([
                { email: "a@example.com", language: "en_US" },
                { email: "b@example.com", language: "en_US" },
                { email: "A@Example.COM", language: "de_DE" },
              ]),
            ],
          },
          ctx(),
        ),
      ),
    ).toEqual(invalidAt("/channels/0/receiver/2/email", "DUPLICATE_RECEIVER"));
    expect(
      thrown(() =>
        putConfig(undefined, { channels: [email(["a@example.com" as unknown as JsonObject])] }, ctx()),
      ),
    ).toEqual(invalidAt("/channels/0/receiver/0", "INVALID_VALUE"));
  });

  it("requires receivers for an EMAIL channel, and enabled, type and events for every channel", () => {
    expect(
      thrown(() =>
        putConfig(
          undefined,
          { channels: [{ type: "EMAIL", enabled: true, events: ["ORDER_CANCELLED"] }] },
          ctx(),
        ),
      ),
    ).toEqual(invalidAt("/channels/0/receiver", "RECEIVER_REQUIRED"));
    expect(
      thrown(() =>
        putConfig(
          undefined,
          { channels: [client(), { type: "CLIENT", events: ["ORDER_CANCELLED"] }] },
          ctx(),
        ),
      ),
    ).toEqual(invalidAt("/channels/1/enabled", "ENABLED_REQUIRED"));
    expect(
      thrown(() =>
        putConfig(undefined, { channels: [{ type: "CLIENT", enabled: "true", events: [] }] }, ctx()),
      ),
    ).toEqual(invalidAt("/channels/0/enabled", "ENABLED_REQUIRED"));
    expect(
      thrown(() =>
        putConfig(undefined, { channels: [{ enabled: true, events: ["ORDER_CANCELLED"] }] }, ctx()),
      ),
    ).toEqual(invalidAt("/channels/0/type", "INVALID_CHANNEL_TYPE"));
    expect(
      thrown(() => putConfig(undefined, { channels: [{ type: "SMS", enabled: true, events: [] }] }, ctx())),
    ).toEqual(invalidAt("/channels/0/type", "INVALID_CHANNEL_TYPE"));
    expect(
      thrown(() => putConfig(undefined, { channels: [{ type: "CLIENT", enabled: true }] }, ctx())),
    ).toEqual(invalidAt("/channels/0/events", "EVENTS_REQUIRED"));
    expect(
      thrown(() =>
        putConfig(
          undefined,
          { channels: [{ type: "CLIENT", enabled: true, events: "ORDER_CANCELLED" }] },
          ctx(),
        ),
      ),
    ).toEqual(invalidAt("/channels/0/events", "INVALID_VALUE"));
  });

  it("keeps no receivers on a CLIENT channel", () => {
    const cfg = putConfig(undefined, { channels: [{ ...client(), receiver: receivers(1) }] }, ctx());
    expect(cfg.channels[0]).not.toHaveProperty("receiver");
  });
});

describe("applyAction", () => {
  it("ADD_CHANNEL appends a channel with a fresh id and bumps the version", () => {
    const first = created();
    const next = applyAction(
      first,
      { name: "ADD_CHANNEL", version: 1, channel: client(["ORDER_UNLOCKED"]) },
      { now: new Date(T1), newId: () => "added" },
    );
    expect(next).toEqual({
      channels: [
        ...first.channels,
        { id: "added", type: "CLIENT", enabled: true, events: ["ORDER_UNLOCKED"] },
      ],
      version: 2,
      created: T0,
      lastModified: T1,
    });
    expect(first.channels).toHaveLength(2);
  });

  it("ADD_CHANNEL validates the channel (fields under /channel) and the limit", () => {
    const first = created();
    expect(
      thrown(() =>
        applyAction(
          first,
          { name: "ADD_CHANNEL", version: 1, channel: { type: "EMAIL", enabled: true, events: [] } },
          ctx(),
        ),
      ),
    ).toEqual(invalidAt("/channel/receiver", "RECEIVER_REQUIRED"));
    expect(
      thrown(() => applyAction(first, { name: "ADD_CHANNEL", version: 1, channel: client(["NOPE"]) }, ctx())),
    ).toEqual(invalidAt("/channel/events/0", "UNKNOWN_EVENT"));
    expect(thrown(() => applyAction(first, { name: "ADD_CHANNEL", version: 1 }, ctx()))).toEqual(
      invalidAt("/channel", "CHANNEL_REQUIRED"),
    );
    const full = putConfig(undefined, { channels: Array.from({ length: 99 }, () => client()) }, ctx());
    const hundred = applyAction(full, { name: "ADD_CHANNEL", version: 1, channel: client() }, ctx());
    expect(hundred.channels).toHaveLength(100);
    expect(
      thrown(() => applyAction(hundred, { name: "ADD_CHANNEL", version: 2, channel: client() }, ctx())),
    ).toEqual(invalidAt("/channel", "LIMIT_EXCEEDED"));
  });

  it("UPDATE_CHANNEL replaces the channel with that id, keeping the id and the others", () => {
    const first = created();
    const [a, b] = first.channels as [Channel, Channel];
    const next = applyAction(
      first,
      {
        name: "UPDATE_CHANNEL",
        version: 1,
        channel: {
          id: a.id,
          type: "EMAIL",
          enabled: false,
          events: ["ORDER_MODIFIED"],
          receiver: receivers(1),
        },
      },
      { now: new Date(T1), newId: () => "never" },
    );
    expect(next).toEqual({
      channels: [
        {
          id: a.id,
          type: "EMAIL",
          enabled: false,
          events: ["ORDER_MODIFIED"],
          receiver: [{ email: "r0@example.com", language: "en_US" }],
        },
        b,
      ],
      version: 2,
      created: T0,
      lastModified: T1,
    });
  });

  it("UPDATE_CHANNEL: unknown id is not_found, a missing id is invalid", () => {
    const first = created();
    expect(
      thrown(() =>
        applyAction(
          first,
          { name: "UPDATE_CHANNEL", version: 1, channel: { ...client(), id: "nope" } },
          ctx(),
        ),
      ),
    ).toMatchObject({ kind: "not_found" });
    expect(
      thrown(() => applyAction(first, { name: "UPDATE_CHANNEL", version: 1, channel: client() }, ctx())),
    ).toEqual(invalidAt("/channel/id", "CHANNEL_ID_REQUIRED"));
  });

  it("requires the current version and a known action name", () => {
    const first = created();
    expect(
      thrown(() => applyAction(first, { name: "ADD_CHANNEL", version: 0, channel: client() }, ctx())),
    ).toMatchObject({
      kind: "version_conflict",
    });
    expect(thrown(() => applyAction(first, { name: "ADD_CHANNEL", channel: client() }, ctx()))).toMatchObject(
      {
        kind: "invalid",
        code: "VERSION_REQUIRED",
      },
    );
    expect(
      thrown(() =>
        applyAction(
          first,
          { name: "UPDATE_CHANNEL", version: 5, channel: { ...client(), id: "id-1" } },
          ctx(),
        ),
      ),
    ).toMatchObject({ kind: "version_conflict" });
    expect(thrown(() => applyAction(first, { name: "DELETE_CHANNEL", version: 1 }, ctx()))).toEqual(
      invalidAt("/name", "UNKNOWN_ACTION"),
    );
  });
});

describe("deleteChannel", () => {
  it("removes the channel and bumps the version", () => {
    const first = created();
    const next = deleteChannel(first, "id-1", 1, ctx(T1));
    expect(next).toEqual({ channels: [first.channels[1]], version: 2, created: T0, lastModified: T1 });
  });

  it("unknown channel is not_found; stale version is version_conflict; missing version is invalid", () => {
    const first = created();
    expect(thrown(() => deleteChannel(first, "nope", 1, ctx()))).toMatchObject({ kind: "not_found" });
    expect(thrown(() => deleteChannel(first, "id-1", 2, ctx()))).toMatchObject({ kind: "version_conflict" });
    expect(thrown(() => deleteChannel(first, "id-1", undefined, ctx()))).toMatchObject({
      kind: "invalid",
      code: "VERSION_REQUIRED",
    });
  });
});

describe("channelsFor", () => {
  it("picks the enabled channels naming the event across several configurations", () => {
    const tenant: NotificationConfig = putConfig(
      undefined,
      {
        channels: [
          client(["ORDER_CANCELLED", "PICK_JOB_CREATED"]),
          client(["ORDER_CANCELLED"], false),
          email(),
        ],
      },
      ctx(),
    );
    const facility: NotificationConfig = putConfig(
      undefined,
      { channels: [client(["ORDER_MODIFIED"]), email(receivers(2), ["ORDER_CANCELLED", "ORDER_UNLOCKED"])] },
      { now: new Date(T0), newId: () => `f-${Math.random()}` },
    );
    const picked = channelsFor([tenant, facility], "ORDER_CANCELLED");
    expect(picked).toEqual([tenant.channels[0], tenant.channels[2], facility.channels[1]]);
    expect(channelsFor([tenant, facility], "PICK_JOB_CREATED")).toEqual([tenant.channels[0]]);
    expect(channelsFor([tenant, facility], "ORDER_FORCE_CANCELLED")).toEqual([]);
    expect(channelsFor([], "ORDER_CANCELLED")).toEqual([]);
  });
});
