/**
 * Lanes: a consumer whose filters follow what its service wants while it runs. JetStream then
 * delivers it only the events of the entity types and event types someone wants, instead of every
 * event for it to drop (NATS 2.9 takes one filter subject per consumer, so each lane is a durable of
 * its own: `<name>-<key>` on `<prefix>.<ENTITY>.>` or `<prefix>.*.<TYPE>`).
 *
 * **The invariant: a lane a committed write relies on has its durable.**
 * - A write that makes a lane wanted calls {@link Lanes.cover} in its transaction, before it
 *   commits: it takes the lanes' advisory lock (shared) and creates each lane's durable that does
 *   not exist, starting at the next event (NATS not answering: an `unavailable` AppError, and the
 *   write rolls back). Every event committed after the write is published after
 *   the durable exists, so it is delivered, whichever replica reads it and when.
 * - Only {@link Lanes.reconcile} deletes a durable, and only with the same lock held exclusively,
 *   after reading what is wanted in that transaction: no write that relies on a lane can be between
 *   its cover and its commit then, and every write that committed before is seen.
 *
 * Readers read every durable named `<name>-*` that exists (listed at each reconcile), so a lane
 * another replica made is read once this replica reconciles: when the service says its wants
 * changed, and after any failure. Until then its events wait in the durable; none is lost.
 *
 * **Migration** from the one durable of before (`<name>` on `<prefix>.>`): the first reconcile
 * creates the wanted lanes and `<name>-legacy` (pre-hierarchy subjects, `<prefix>.*`, as durable.ts
 * does) at that durable's first unacknowledged event, then deletes it. What both deliver is applied
 * once: the inbox and the dead letters stay keyed by `<name>`. `<name>-legacy` is never pruned; once
 * no producer writes legacy subjects it costs nothing, and an operator may delete it when its
 * pending count is 0. A replica of the version before, still running in a rolling deploy, makes its
 * durable again (delivering the stream from its start, every event found in the inbox or skipped);
 * the next reconcile removes it again, and once none runs it stays removed.
 */
import { type Db, query } from "../../db/sql.ts";
import { inTransaction } from "../../db/tx.ts";
import { AppError } from "../../errors.ts";
import { entityFilter, legacyFilter } from "../nats.ts";
import { durableApi } from "./durable.ts";
import { laneDurables } from "./lane-durables.ts";
import type { ConsumerRuntime, Lane, LaneOptions } from "./options.ts";

export type { Lane, LaneOptions };

/** The key of a lane (its durable is `<consumer name>-<key>`). */
export const laneKey = (lane: Lane): string => ("entityType" in lane ? lane.entityType : lane.type);

/** The filter subject of a lane. */
export const laneSubject = (subjectPrefix: string, lane: Lane): string =>
  "entityType" in lane ? entityFilter(subjectPrefix, lane.entityType) : `${subjectPrefix}.*.${lane.type}`;

/** The lanes of a consumer (see the module comment). */
export interface Lanes {
  /** In a write's transaction, before it commits: the lock (shared) and the durables of `lanes`. */
  cover(tx: Db, lanes: readonly Lane[]): Promise<void>;
  /**
   * Under the lock (exclusive): creates the wanted lanes' missing durables (and brings the others to
   * the consumer's limits), migrates the durable of before, deletes the durables of lanes no longer
   * wanted; resolves to the durables to read.
   */
  reconcile(): Promise<string[]>;
}

export function lanes(rt: ConsumerRuntime, o: LaneOptions): Lanes {
  const { db, nats, logger, schema, opts } = rt;
  const prefix = nats.events.subjectPrefix;
  const api = durableApi(rt);
  const namePrefix = `${opts.name}-`;
  const legacyName = `${opts.name}-legacy`;
  const lockKey = `${schema}.${opts.name}.lanes`;
  const lock = (tx: Db, mode: "shared" | "exclusive") =>
    query(tx, {
      text: `select pg_advisory_xact_lock${mode === "shared" ? "_shared" : ""}(hashtextextended($1, 0))`,
      params: [lockKey],
    });

  return {
    async cover(tx, wanted) {
      await lock(tx, "shared");
      try {
        await nats.ensureStream();
        for (const lane of wanted) {
          await api.add(api.config(namePrefix + laneKey(lane), laneSubject(prefix, lane), "new"));
        }
      } catch (err) {
        // The write must not commit without its lanes: the caller's 503, retried.
        logger.warn({ consumer: opts.name, err: (err as Error).message }, "lanes not covered");
        throw new AppError("unavailable", {
          code: "EVENT_STREAM_UNAVAILABLE",
          description: "The service cannot reach its event stream right now; retry with exponential backoff.",
          cause: err,
        });
      }
    },

    async reconcile() {
      await nats.ensureStream();
      return inTransaction(db, async (tx) => {
        await lock(tx, "exclusive");
        const wanted = new Map((await o.wanted(tx)).map((l) => [namePrefix + laneKey(l), l]));
        const have = await laneDurables(nats, opts.name);
        const reading = new Set(have.keys());
        const before = await api.info(opts.name);
        const start = before ? before.ack_floor.stream_seq + 1 : "new";
        if (before) {
          logger.info(
            { consumer: opts.name, lanes: [...wanted.keys()], startSeq: start },
            "migrating the durable consumer to lanes",
          );
        }
        for (const [name, lane] of wanted) {
          const current = have.get(name)?.config;
          if (!current) {
            await api.add(api.config(name, laneSubject(prefix, lane), start));
            reading.add(name);
          } else if (
            current.ack_wait !== api.limits.ack_wait ||
            current.max_ack_pending !== api.limits.max_ack_pending
          ) {
            // The consumer's limits changed (a new version, EVENTS_ACK_WAIT_MS), as durable.ts does.
            await api.updateLimits(name);
          }
        }
        if (before) {
          if (!have.has(legacyName)) await api.add(api.config(legacyName, legacyFilter(prefix), start));
          reading.add(legacyName);
          await api.remove(opts.name);
        }
        for (const name of have.keys()) {
          if (wanted.has(name) || name === legacyName) continue;
          await api.remove(name);
          reading.delete(name);
        }
        return [...reading].sort();
      });
    },
  };
}
