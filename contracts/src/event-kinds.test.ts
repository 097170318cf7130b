import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  EVENT_KINDS,
  type EventProducer,
  eventTypesReaching,
  isSubscribableEvent,
  NOTIFICATION_CHANNEL_EVENTS,
  PLATFORM_KIND_ALIASES,
  SUBSCRIBABLE_EVENTS,
  subscribedKindsOf,
} from "./event-kinds.ts";

const kinds = EVENT_KINDS.map((e) => e.kind);

describe("EVENT_KINDS", () => {
  it("names each kind once, in upper snake case, with an operation", () => {
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const e of EVENT_KINDS) {
      expect(e.kind).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
      expect(e.emittedBy).not.toBe("");
      if (e.producer !== "external") expect(e.entityType).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
    }
  });

  it("holds every notification channel kind", () => {
    for (const kind of NOTIFICATION_CHANNEL_EVENTS) expect(kinds).toContain(kind);
    expect(new Set(NOTIFICATION_CHANNEL_EVENTS).size).toBe(NOTIFICATION_CHANNEL_EVENTS.length);
  });

  it("holds the kinds the spec names as public (ours and the platform's)", () => {
    for (const kind of [
      "REFUND_TRIGGERED",
      "PICK_JOB_CLOSED",
      "SERVICE_JOB_CREATED",
      "SERVICE_JOB_FINISHED",
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(EVENT_KINDS.find((e) => e.kind === "PICK_JOB_CREATED")?.producer).toBe("picking");
  });
});

describe("SUBSCRIBABLE_EVENTS", () => {
  it("is sorted and is exactly the set of kinds and platform aliases", () => {
    const all = [...kinds, ...Object.keys(PLATFORM_KIND_ALIASES)];
    expect(SUBSCRIBABLE_EVENTS).toEqual([...SUBSCRIBABLE_EVENTS].sort());
    expect(new Set(SUBSCRIBABLE_EVENTS)).toEqual(new Set(all));
    expect(SUBSCRIBABLE_EVENTS).toHaveLength(all.length);
  });

  it("aliases name platform kinds we do not emit, standing for kinds we do", () => {
    for (const [platform, ours] of Object.entries(PLATFORM_KIND_ALIASES)) {
      expect(kinds).not.toContain(platform);
      for (const kind of ours) {
        expect(kinds).toContain(kind);
        expect(subscribedKindsOf(kind)).toEqual(expect.arrayContaining([kind, platform]));
      }
    }
    expect(subscribedKindsOf("PICK_JOB_PICKED")).toEqual(["PICK_JOB_PICKED", "PICK_JOB_PICKING_FINISHED"]);
    expect(subscribedKindsOf("PICK_JOB_CREATED")).toEqual(["PICK_JOB_CREATED"]);
  });

  it("eventTypesReaching is the inverse of subscribedKindsOf, for every kind a subscription may name", () => {
    const types = [...SUBSCRIBABLE_EVENTS, "SOME_TYPE_NOBODY_KNOWS"];
    for (const subscribed of [...SUBSCRIBABLE_EVENTS, "SOME_TYPE_NOBODY_KNOWS"]) {
      const reaching = types.filter((t) => subscribedKindsOf(t).includes(subscribed));
      expect(new Set(eventTypesReaching(subscribed)), subscribed).toEqual(new Set(reaching));
    }
    expect(eventTypesReaching("PICK_JOB_PICKING_FINISHED")).toEqual([
      "PICK_JOB_PICKING_FINISHED",
      "PICK_JOB_PICKED",
    ]);
    expect(eventTypesReaching("ITEM_RETURN_JOB_UPDATED")).toContain("ITEM_RETURN_ADDED");
    expect(eventTypesReaching("PICK_JOB_CREATED")).toEqual(["PICK_JOB_CREATED"]);
    expect(eventTypesReaching("constructor")).toEqual(["constructor"]); // not an Object.prototype key
  });

  it("isSubscribableEvent accepts exactly those", () => {
    for (const kind of kinds) expect(isSubscribableEvent(kind)).toBe(true);
    expect(isSubscribableEvent("pick_job_created")).toBe(false);
    expect(isSubscribableEvent("PICK_JOB_PICKING_FINISHED")).toBe(true); // a platform alias
    expect(isSubscribableEvent("PICK_JOB_PICKING_STARTED")).toBe(false);
    expect(isSubscribableEvent("")).toBe(false);
  });
});

/**
 * A static check that each of our kinds is built in its producer's source (`services/<producer>/src`,
 * every `.ts` file but the tests): the kind appears as a whole string literal ("PICK_JOB_CREATED"),
 * or it is a composition we can see: for some split point k, the head kind.slice(0, k) is the fixed
 * start of a template literal (`CATEGORY_${change}`) or a whole literal joined with "_"
 * ("LOAD_UNIT_TYPE" in `${entityType}_${change}`), and the tail kind.slice(k) (after that "_") is a
 * whole literal ("CREATED" in `type Change = "CREATED" | ...`). It cannot prove that the two pieces
 * are ever combined (CARRIER_ + "DELETED" would pass), only that a kind is not made up.
 */
describe("each kind of ours is built in its producer's source", () => {
  const servicesDir = path.resolve(import.meta.dirname, "../../services");
  const sources = new Map<EventProducer, string>();
  const sourceOf = (producer: EventProducer): string => {
    let text = sources.get(producer);
    if (text === undefined) {
      const dir = path.join(servicesDir, producer, "src");
      text = readdirSync(dir, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
        .sort()
        .map((f) => readFileSync(path.join(dir, f), "utf8"))
        .join("\n");
      sources.set(producer, text);
    }
    return text;
  };
  const quotes = ['"', "'", "`"];
  const wholeLiteral = (src: string, s: string) => quotes.some((q) => src.includes(`${q}${s}${q}`));
  const templateHead = (src: string, s: string) => src.includes(`\`${s}\${`);

  const composed = (src: string, kind: string): boolean => {
    for (let k = 1; k < kind.length; k++) {
      const head = kind.slice(0, k);
      const tail = kind.slice(k);
      if (templateHead(src, head) && wholeLiteral(src, tail)) return true;
      if (tail.startsWith("_") && wholeLiteral(src, head) && wholeLiteral(src, tail.slice(1))) return true;
    }
    return false;
  };

  it.each(EVENT_KINDS.filter((e) => e.producer !== "external").map((e) => [e.kind, e.producer] as const))(
    "%s (%s)",
    (kind, producer) => {
      const src = sourceOf(producer);
      expect(wholeLiteral(src, kind) || composed(src, kind)).toBe(true);
    },
  );

  it("rejects a kind its producer does not build", () => {
    expect(wholeLiteral(sourceOf("picking"), "PICK_JOB_PICKING_FINISHED")).toBe(false);
    expect(composed(sourceOf("picking"), "PICK_JOB_PICKING_FINISHED")).toBe(false);
    expect(composed(sourceOf("catalog"), "CATEGORY_OBSOLETED")).toBe(false);
  });
});
