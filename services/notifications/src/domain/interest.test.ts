import { PLATFORM_KIND_ALIASES } from "@fop/contracts/event-kinds";
import { describe, expect, it } from "vitest";
import { putConfig } from "./config.ts";
import {
  buildInterest,
  type ConfiguredChannels,
  type SubscribedKind,
  wantedByAnyone,
  wants,
} from "./interest.ts";
import type { JsonObject } from "./types.ts";

let ids = 0;
/** A configuration as PUT stores it (the domain's own parsing), for `tenant`. */
const config = (tenant: string, channels: JsonObject[]): ConfiguredChannels => ({
  tenant,
  ...putConfig(undefined, { channels }, { now: new Date(), newId: () => `ch-${++ids}` }),
});
const client = (events: string[], enabled = true): JsonObject => ({ type: "CLIENT", enabled, events });
const email = (events: string[], enabled = true): JsonObject => ({
  type: "EMAIL",
  enabled,
  events,
  receiver: [{ email: "ops@example.com", language: "en_US" }],
});
const sub = (tenant: string, event: string): SubscribedKind => ({ tenant, event });

describe("buildInterest / wants", () => {
  const cases: {
    name: string;
    subs?: SubscribedKind[];
    configs?: ConfiguredChannels[];
    wanted: [string, string][];
    skipped: [string, string][];
  }[] = [
    {
      name: "nothing subscribed or configured: nothing wanted",
      wanted: [],
      skipped: [
        ["acme", "PICK_JOB_CREATED"],
        ["acme", "CATEGORY_CREATED"],
      ],
    },
    {
      name: "a subscription wants its kind, for its tenant only",
      subs: [sub("acme", "PICK_JOB_CREATED")],
      wanted: [["acme", "PICK_JOB_CREATED"]],
      skipped: [
        ["acme", "PICK_JOB_PICKED"],
        ["acme", "CATEGORY_CREATED"],
        ["globex", "PICK_JOB_CREATED"],
      ],
    },
    {
      name: "the SDK's PICK_JOB_PICKING_FINISHED wants our PICK_JOB_PICKED (and itself)",
      subs: [sub("acme", "PICK_JOB_PICKING_FINISHED")],
      wanted: [
        ["acme", "PICK_JOB_PICKED"],
        ["acme", "PICK_JOB_PICKING_FINISHED"],
      ],
      skipped: [
        ["acme", "PICK_JOB_CREATED"],
        ["acme", "PICK_JOB_CLOSED"],
      ],
    },
    {
      name: "ITEM_RETURN_JOB_UPDATED wants every finer kind it stands for, not the job's creation",
      subs: [sub("acme", "ITEM_RETURN_JOB_UPDATED")],
      wanted: (PLATFORM_KIND_ALIASES.ITEM_RETURN_JOB_UPDATED ?? []).map(
        (t) => ["acme", t] as [string, string],
      ),
      skipped: [
        ["acme", "ITEM_RETURN_JOB_CREATED"],
        ["acme", "PARCEL_CREATED"],
      ],
    },
    {
      name: "a finer kind subscribed by name wants only itself, not its alias's siblings",
      subs: [sub("acme", "ITEM_RETURN_ADDED")],
      wanted: [["acme", "ITEM_RETURN_ADDED"]],
      skipped: [["acme", "ITEM_RETURN_DELETED"]],
    },
    {
      name: "the tenant's configuration: the events of its enabled channels, CLIENT and EMAIL",
      configs: [config("acme", [client(["PICK_JOB_CREATED"]), email(["ORDER_CANCELLED", "ORDER_MODIFIED"])])],
      wanted: [
        ["acme", "PICK_JOB_CREATED"],
        ["acme", "ORDER_CANCELLED"],
        ["acme", "ORDER_MODIFIED"],
      ],
      skipped: [
        ["acme", "ORDER_UNLOCKED"],
        ["globex", "PICK_JOB_CREATED"],
      ],
    },
    {
      name: "a facility's configuration makes its channels' events wanted by the tenant",
      configs: [config("acme", []), config("acme", [client(["ROUTING_PLAN_WAITING"])])],
      wanted: [["acme", "ROUTING_PLAN_WAITING"]],
      skipped: [["acme", "PICK_JOB_CREATED"]],
    },
    {
      name: "a disabled channel wants nothing; an enabled one beside it still does",
      configs: [
        config("acme", [client(["PICK_JOB_CREATED", "ORDER_CANCELLED"], false), email(["ORDER_CANCELLED"])]),
      ],
      wanted: [["acme", "ORDER_CANCELLED"]],
      skipped: [["acme", "PICK_JOB_CREATED"]],
    },
    {
      name: "subscriptions and channels add up",
      subs: [sub("acme", "CATEGORY_CREATED")],
      configs: [config("acme", [client(["PICK_JOB_CREATED"])])],
      wanted: [
        ["acme", "CATEGORY_CREATED"],
        ["acme", "PICK_JOB_CREATED"],
      ],
      skipped: [["acme", "CATEGORY_DELETED"]],
    },
  ];

  it.each(cases)("$name", ({ subs = [], configs = [], wanted, skipped }) => {
    const interest = buildInterest(subs, configs);
    for (const [tenant, type] of wanted)
      expect(wants(interest, tenant, type), `${tenant} ${type}`).toBe(true);
    for (const [tenant, type] of skipped)
      expect(wants(interest, tenant, type), `${tenant} ${type}`).toBe(false);
  });

  it("a deleted subscription's kind is no longer wanted, unless another subscription names it", () => {
    const a = sub("acme", "PICK_JOB_CREATED");
    const b = sub("acme", "PICK_JOB_CREATED");
    const c = sub("acme", "PICK_JOB_PICKING_FINISHED");
    expect(wants(buildInterest([a, b, c], []), "acme", "PICK_JOB_PICKED")).toBe(true);
    expect(wants(buildInterest([a, c], []), "acme", "PICK_JOB_CREATED")).toBe(true); // b deleted
    expect(wants(buildInterest([c], []), "acme", "PICK_JOB_CREATED")).toBe(false); // a and b deleted
    expect(wants(buildInterest([a, b], []), "acme", "PICK_JOB_PICKED")).toBe(false); // c deleted
  });

  it("wantedByAnyone: some tenant wants the type", () => {
    const interest = buildInterest(
      [sub("acme", "PICK_JOB_PICKING_FINISHED")],
      [config("globex", [client(["ORDER_CANCELLED"]), client(["PICK_JOB_CREATED"], false)])],
    );
    expect(wantedByAnyone(interest, "PICK_JOB_PICKED")).toBe(true);
    expect(wantedByAnyone(interest, "ORDER_CANCELLED")).toBe(true);
    expect(wantedByAnyone(interest, "PICK_JOB_CREATED")).toBe(false);
    expect(wantedByAnyone(interest, "CATEGORY_CREATED")).toBe(false);
  });
});
