/**
 * A consumer's durables on the stream: created, updated to the consumer's limits, or migrated to
 * its narrower filter (see {@link durables}); and the calls on them that lanes.ts shares.
 */
import { AckPolicy, type ConsumerInfo, DeliverPolicy } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { entityFilter, legacyFilter } from "../nats.ts";
import type { ConsumerRuntime } from "./options.ts";

/** The calls on a consumer's durables, with its limits. */
export function durableApi(rt: ConsumerRuntime) {
  const { nats, concurrency, batchSize } = rt;
  const stream = nats.events.stream;
  const limits = {
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(nats.events.ackWaitMs ?? 30_000),
    // Unlimited: at JetStream's limit it would stop delivering an event whether or not its dead
    // letter was written (see deadLetter in delivery.ts).
    max_deliver: -1,
    max_ack_pending: Math.max(concurrency * 4, batchSize * concurrency * 2),
  };
  /** Durable `name` on `filterSubject`, from `startSeq` (none: every event; "new": the next one). */
  const config = (name: string, filterSubject: string, startSeq?: number | "new") => ({
    ...limits,
    durable_name: name,
    filter_subject: filterSubject,
    ...(startSeq === undefined
      ? { deliver_policy: DeliverPolicy.All }
      : startSeq === "new"
        ? { deliver_policy: DeliverPolicy.New }
        : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }),
  });
  return {
    limits,
    config,
    /** The durable's info; undefined when it does not exist. */
    info: (name: string): Promise<ConsumerInfo | undefined> =>
      nats.jsm.consumers.info(stream, name).catch((err: Error) => {
        if (/consumer not found/i.test(err.message)) return undefined;
        throw err;
      }),
    /** Creates the durable; one that exists already (made by another replica) is left as it is. */
    add: (c: ReturnType<typeof config>) =>
      nats.jsm.consumers.add(stream, c).then(
        () => undefined,
        (err: Error) => {
          if (!/already (in use|exists)/i.test(err.message)) throw err;
        },
      ),
    /** Brings an existing durable to the consumer's limits (they may have changed since it was made). */
    updateLimits: (name: string) =>
      nats.jsm.consumers.update(stream, name, {
        ack_wait: limits.ack_wait,
        max_deliver: limits.max_deliver,
        max_ack_pending: limits.max_ack_pending,
      }),
    /** Deletes the durable; one already gone is no error. */
    remove: (name: string) =>
      nats.jsm.consumers.delete(stream, name).then(
        () => undefined,
        (err: Error) => {
          if (!/consumer not found/i.test(err.message)) throw err;
        },
      ),
  };
}

/**
 * Returns `ensure`, which creates or updates the durable and resolves to the durables to read: its
 * own and, after a migration, the legacy one.
 *
 * **Migration.** A durable whose filter is not this consumer's (one made before the subject
 * hierarchy: `<prefix>.>` for every consumer) cannot be changed in place on NATS 2.9. It is
 * replaced by one of the same name (the inbox and dead letters are keyed by the name) with the new
 * filter, starting at the old one's first unacknowledged event (what it had acknowledged out of
 * order comes again: applying is idempotent). Events on legacy subjects (`<prefix>.<TYPE>`, which
 * producers not yet upgraded still publish during a rolling deploy, and their relays' outbox rows
 * hold) match no entity filter: a second durable, `<name>-legacy`, reads exactly those from the
 * same point on, so none is lost. It is made first: a crash at any step leaves either the old
 * durable or (none left) a new one delivering the whole stream again, never a gap. Once no
 * producer writes legacy subjects it receives nothing and costs nothing; an operator may delete it
 * when its pending count is 0.
 */
export function durables(rt: ConsumerRuntime): { ensure: () => Promise<string[]> } {
  const { nats, logger, opts } = rt;
  const prefix = nats.events.subjectPrefix;
  const stream = nats.events.stream;
  const filter = entityFilter(prefix, opts.entityType);
  const legacyName = `${opts.name}-legacy`;
  const api = durableApi(rt);

  async function ensure(): Promise<string[]> {
    await nats.ensureStream();
    const current = await api.info(opts.name);
    if (!current) {
      await api.add(api.config(opts.name, filter));
    } else if ((current.config.filter_subject ?? "") !== filter) {
      const start = current.ack_floor.stream_seq + 1;
      logger.info(
        { consumer: opts.name, from: current.config.filter_subject, to: filter, startSeq: start },
        "migrating the durable consumer to its narrower filter",
      );
      if (filter !== entityFilter(prefix)) await api.add(api.config(legacyName, legacyFilter(prefix), start));
      await nats.jsm.consumers.delete(stream, opts.name);
      await api.add(api.config(opts.name, filter, start));
    } else {
      await api.updateLimits(opts.name);
    }
    return filter !== entityFilter(prefix) && (await api.info(legacyName))
      ? [opts.name, legacyName]
      : [opts.name];
  }
  return { ensure };
}
