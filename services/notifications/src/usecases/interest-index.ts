/**
 * The interest index: which event types each tenant wants (domain/interest.ts), held in memory so
 * that the dispatch consumer can skip an event nobody wants without a transaction, an inbox row or a
 * query, and (wired as the kit consumer's pre-decode test) without decoding it.
 *
 * Loaded from the database (two statements over all tenants). Reloaded:
 * - when a write of this process that changes subscriptions or configurations commits
 *   ({@link InterestIndex.invalidate}, called through `whenCommitted` by every such use case);
 * - when another replica says it made one: invalidate() also publishes on the core NATS subject
 *   {@link interestSubject}, which every replica listens to;
 * - after this process's NATS connection reconnects (what was said meanwhile is lost);
 * - every `refreshMs`, in the background, as the safety net for a broadcast lost otherwise.
 *
 * Consistency. An invalidation makes the index stale at once; a decision on a stale index waits for
 * the reload ({@link InterestIndex.accepts}, before the consumer's transaction) or answers "wanted"
 * ({@link InterestIndex.mayWant}, inside it: waiting there would hold a pool connection the reload
 * may need). Reloads run one at a time; an invalidation during one is followed by another. The
 * reload starts after the write committed, so it sees it. Hence on the replica that made the write,
 * a new subscription or channel takes effect for every event decided after the write's answer: a
 * client that subscribes and then writes gets its webhook. On another replica it takes effect once the
 * broadcast arrives, which in practice is before the event: the broadcast is published at commit on
 * the same NATS connection that the outbox relay publishes the write's events on afterwards, and the
 * event still has to go through the stream and the durable consumer. If the broadcast is lost (NATS
 * down and the replica not reconnected in between), that replica may skip the new subscription's
 * events until its next periodic refresh (at most `refreshMs`). A deleted subscription or channel
 * loses nothing either way: dispatch reads the rows of the events it takes.
 *
 * Never drops an event because the index is unavailable: while it cannot be loaded (or a load takes
 * longer than `loadTimeoutMs`), every event is "wanted" and takes the database path as before; a
 * new load is tried at the next decision `retryMs` after the failure.
 *
 * Metrics: `fop_notifications_interest_total{decision}` (wanted, skipped, fallback: wanted without
 * a decision, the index being reloaded without waiting for it or not loadable) counts decisions; `fop_notifications_interest_reloads_total{outcome}`
 * (ok, failed) counts loads.
 */
import { randomUUID } from "node:crypto";
import { entityTypeOfKind } from "@fop/contracts/event-kinds";
import type { Db } from "@fop/kit/db/sql";
import type { Lane } from "@fop/kit/events/consumer";
import type { Logger } from "@fop/kit/logger";
import { createCounter, type Metrics } from "@fop/kit/metrics";
import type { Worker } from "@fop/kit/worker";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { configuredChannels, subscribedKinds } from "../db/rows.ts";
import { buildInterest, type Interest, wantedByAnyone, wants } from "../domain/interest.ts";

/**
 * The core NATS subject replicas tell each other on that subscriptions or configurations changed:
 * beside the event stream (which takes `<prefix>.>`), as the live notifications' subject.
 */
export const interestSubject = (prefix: string) => `${prefix}_interest.notifications`;

/**
 * The lanes the dispatch consumer reads to be delivered events of `types` (kit consumer/lanes.ts):
 * one per entity type our services emit them for (`<prefix>.<ENTITY>.>`), one per type of an
 * external or unknown kind (`<prefix>.*.<TYPE>`), sorted by key. JetStream delivers dispatch
 * nothing else, so an event of an entity type nobody wants costs notifications nothing.
 */
export function dispatchLanes(types: Iterable<string>): Lane[] {
  const lanes = new Map<string, Lane>();
  for (const type of types) {
    const entityType = entityTypeOfKind(type);
    if (entityType) lanes.set(entityType, { entityType });
    else lanes.set(type, { type });
  }
  return [...lanes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, l]) => l);
}

/** The index as the database holds it now. */
export const loadInterest = async (db: Db): Promise<Interest> =>
  buildInterest(await subscribedKinds(db), await configuredChannels(db));

export interface InterestIndexOptions {
  load: () => Promise<Interest>;
  /** The replicas' channel: this connection and {@link interestSubject} (none: this process alone). */
  bus?: { nc: NatsConnection; subject: string } | undefined;
  /** Background reload interval (the safety net for a lost broadcast). */
  refreshMs: number;
  /** A load taking longer counts as failed (default 5 s). */
  loadTimeoutMs?: number;
  /** After a failed load, decisions answer "wanted" without waiting for this long (default 1 s). */
  retryMs?: number;
  logger: Logger;
  metrics?: Metrics | undefined;
  /** Called with every index loaded (the dispatch consumer follows its lanes from it). */
  onLoad?: (interest: Interest) => void;
}

export interface InterestIndex extends Worker {
  /**
   * Whether `tenant` wants events of `type`: at once from a fresh index; after the reload when it is
   * stale; true while it cannot be loaded. The shape of the kit consumer's `accepts` test.
   */
  accepts: (tenant: string, type: string) => boolean | Promise<boolean>;
  /**
   * The same without waiting, for use inside a transaction: false only when the index is fresh and
   * says the tenant does not want `type`.
   */
  mayWant: (tenant: string, type: string) => boolean;
  /** Whether some tenant may want `type` (true unless the index is fresh and says no one does). */
  anyTenantWants: (type: string) => boolean;
  /** A write of this process changed subscriptions or configurations and committed. */
  invalidate: () => void;
}

/** `p`, or a rejection once `ms` have passed. */
function timeBoxed<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`took longer than ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export function interestIndex(o: InterestIndexOptions): InterestIndex {
  const loadTimeoutMs = o.loadTimeoutMs ?? 5_000;
  const retryMs = o.retryMs ?? 1_000;
  const origin = randomUUID();
  const decisions =
    o.metrics &&
    createCounter(
      o.metrics,
      "fop_notifications_interest_total",
      "Dispatch decisions of the interest index by decision (wanted; skipped: no subscription or channel of the tenant takes the event type; fallback: wanted without a decision, the index being reloaded or not loadable)",
      ["decision"],
    );
  const reloads =
    o.metrics &&
    createCounter(
      o.metrics,
      "fop_notifications_interest_reloads_total",
      "Loads of the interest index by outcome (ok, failed)",
      ["outcome"],
    );
  for (const decision of ["wanted", "skipped", "fallback"]) decisions?.inc({ decision }, 0);
  for (const outcome of ["ok", "failed"]) reloads?.inc({ outcome }, 0);

  let current: Interest | undefined;
  /** Bumped by every invalidation; `current` is fresh when it was loaded at the latest one. */
  let generation = 0;
  let loadedAt = -1;
  let loading: Promise<Interest | undefined> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  let subscription: Subscription | undefined;
  let statuses: { stop?(): void } | undefined;
  let timer: NodeJS.Timeout | undefined;

  const fresh = () => current !== undefined && loadedAt === generation;

  /** One load at a time, repeated while invalidations came during it; undefined when it failed. */
  function reload(): Promise<Interest | undefined> {
    loading ??= (async () => {
      try {
        do {
          const at = generation;
          current = await timeBoxed(o.load(), loadTimeoutMs);
          loadedAt = at;
          reloads?.inc({ outcome: "ok" });
          o.onLoad?.(current);
        } while (loadedAt !== generation);
        failedAt = Number.NEGATIVE_INFINITY;
        return current;
      } catch (err) {
        failedAt = Date.now();
        reloads?.inc({ outcome: "failed" });
        o.logger.warn(
          { err: (err as Error).message },
          "interest index not loaded: events take the database path until it is",
        );
        return undefined;
      } finally {
        loading = undefined;
      }
    })();
    return loading;
  }

  function stale(): void {
    generation++;
    void reload();
  }

  function decide(tenant: string, type: string, interest: Interest | undefined): boolean {
    if (!interest) {
      decisions?.inc({ decision: "fallback" });
      return true;
    }
    const yes = wants(interest, tenant, type);
    decisions?.inc({ decision: yes ? "wanted" : "skipped" });
    return yes;
  }

  /** Not loaded, and no load running or due: the failure was less than `retryMs` ago. */
  const resting = () => !loading && Date.now() - failedAt < retryMs;

  const accepts = (tenant: string, type: string): boolean | Promise<boolean> => {
    if (fresh()) return decide(tenant, type, current);
    if (resting()) return decide(tenant, type, undefined);
    // (Invalidated again while this waited: decided as wanted rather than waiting on.)
    return reload().then((interest) => decide(tenant, type, fresh() ? interest : undefined));
  };

  const mayWant = (tenant: string, type: string): boolean => {
    if (fresh()) return decide(tenant, type, current);
    if (!resting()) void reload();
    return decide(tenant, type, undefined);
  };

  return {
    name: "notifications-interest",
    accepts,
    mayWant,
    anyTenantWants(type) {
      if (fresh()) return wantedByAnyone(current as Interest, type);
      if (!resting()) void reload();
      return true;
    },
    invalidate() {
      stale();
      if (!o.bus) return;
      try {
        o.bus.nc.publish(o.bus.subject, origin);
      } catch (err) {
        // Closing, or not connected: the others reload at their next refresh.
        o.logger.warn({ err: (err as Error).message }, "interest change not broadcast");
      }
    },
    async start() {
      if (o.bus) {
        const { nc, subject } = o.bus;
        subscription = nc.subscribe(subject, {
          callback: (err, m) => {
            if (!err && m.string() !== origin) stale();
          },
        });
        // Listening before the first load: a change said after it started is not missed.
        await nc.flush().catch(() => {});
        const iter = nc.status();
        statuses = iter as { stop?(): void };
        void (async () => {
          for await (const s of iter) if (s.type === "reconnect") stale();
        })().catch(() => {});
      }
      timer = setInterval(() => void reload(), o.refreshMs);
      timer.unref();
      void reload();
    },
    async stop() {
      clearInterval(timer);
      subscription?.unsubscribe();
      statuses?.stop?.();
      await loading;
    },
  };
}
