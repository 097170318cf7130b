/**
 * A consumer's dead letters: listed for operators, and replayed once their cause is fixed, each
 * stored message through the path a delivery takes (its row deleted once it is applied).
 */
import { type Db, query } from "../../db/sql.ts";
import { isUuid } from "../../ids.ts";
import { otelContext, SpanStatusCode } from "../../otel.ts";
import { type ApplyMode, type Deliveries, decodeEvent } from "./delivery.ts";
import type { ConsumerRuntime } from "./options.ts";

/** Dead letters one replay call tries at most (the oldest first when it names none). */
export const REPLAY_LIMIT = 1000;

/** What a replay of a consumer's dead letters did. */
export interface ReplayReport {
  /**
   * Dead letters applied now, found applied before (an event is applied once), or of a type the
   * consumer no longer takes (nothing to apply, as on a delivery): their rows are deleted.
   */
  replayed: number;
  /**
   * Dead letters that failed again (undecodable, rejected, or the handler failing): their rows are
   * kept with this error, one more delivery counted and `failed_at` set to now.
   */
  failed: { id: string; eventId: string | null; error: string }[];
  /** Ids named that are not (or, replayed meanwhile by another call, no longer) this consumer's dead letters. */
  notFound: string[];
  /**
   * The consumer's dead letters this call did not try (beyond {@link REPLAY_LIMIT}, not named, or
   * written meanwhile); those that failed again are not counted here.
   */
  remaining: number;
}

/** Re-applies the consumer's dead letters: `ids`, or (without) the oldest {@link REPLAY_LIMIT}. */
export function deadLetterReplay(
  rt: ConsumerRuntime,
  mode: ApplyMode,
  deliveries: Pick<Deliveries, "eventSpan">,
): (ids?: readonly string[]) => Promise<ReplayReport> {
  const { db, logger, schema, opts, wanted } = rt;

  /**
   * Applies a stored message (a dead letter's payload) the way a delivery does: decoded (throws
   * `undecodable: ...`); a type the consumer does not take is skipped; then, in `handle` mode, the
   * inbox row and the handler in one transaction; in `batch` mode `batch.check` and the statement
   * for this one event, autocommitted. `claim` (deleting the dead letter's row) runs first in that
   * transaction, after the statement in `batch` mode; undefined when it found nothing to claim (in
   * `handle` mode nothing is applied then). Throws what a delivery would fail with.
   */
  async function applyStored(data: Uint8Array, claim: (db: Db) => Promise<boolean>) {
    const event = decodeEvent(data);
    if (!wanted(event.type)) return (await claim(db)) ? { event, applied: "skipped" as const } : undefined;
    const applied = await mode.applyStored(event, claim);
    return applied ? { event, applied } : undefined;
  }

  /**
   * Replays one dead letter: applies its payload and deletes its row, in one transaction in `handle`
   * mode. In `batch` mode the statement commits, then the row is deleted: a crash in between leaves
   * the row, and replaying it again is harmless (the statement skips an event it applied before).
   * `gone`: the row is not there (any more), e.g. another replay took it.
   */
  async function replayOne(
    id: string,
    eventId: string | null,
  ): Promise<{ outcome: "replayed" } | { outcome: "gone" } | { outcome: "failed"; error: string }> {
    const [row] = await query<{ subject: string; payload: Buffer }>(db, {
      text: `select subject, payload from ${schema}.dead_letter where id = $1`,
      params: [id],
    });
    if (!row) return { outcome: "gone" };
    const { span, context } = deliveries.eventSpan(
      `${row.subject} replay`,
      eventId ?? undefined,
      otelContext.active(),
    );
    const claim = async (q: Db) =>
      (
        await query(q, {
          text: `delete from ${schema}.dead_letter where id = $1 returning 1 as ok`,
          params: [id],
        })
      ).length === 1;
    try {
      const done = await otelContext.with(context, () => applyStored(row.payload, claim));
      if (!done) return { outcome: "gone" };
      rt.replayed("replayed");
      logger.info(
        { consumer: opts.name, eventId: done.event.id, deadLetter: id, applied: done.applied },
        "dead letter replayed",
      );
      return { outcome: "replayed" };
    } catch (err) {
      const error = `replay failed: ${(err as Error).message}`.slice(0, 4000);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      // Kept with the new error; the replay counts as one more delivery, and failed_at moves to now
      // (a replay of all takes the least recently failed first, so the next call gets to others).
      await query(db, {
        text: `update ${schema}.dead_letter set error = $2, deliveries = deliveries + 1, failed_at = clock_timestamp() where id = $1`,
        params: [id, error],
      });
      rt.replayed("failed");
      logger.warn({ consumer: opts.name, eventId, deadLetter: id, error }, "dead letter replay failed");
      return { outcome: "failed", error };
    } finally {
      span.end();
    }
  }

  return async function replayDeadLetters(ids?: readonly string[]): Promise<ReplayReport> {
    const report: ReplayReport = { replayed: 0, failed: [], notFound: [], remaining: 0 };
    let rows: { id: string; event_id: string | null }[];
    if (ids) {
      const named = [...new Set(ids)];
      // A UUID in any case names the row; anything else names none.
      const valid = named.filter(isUuid).map((id) => id.toLowerCase());
      rows = await query(db, {
        text: `select id, event_id from ${schema}.dead_letter where consumer = $1 and id = any($2::uuid[]) order by failed_at, id`,
        params: [opts.name, valid],
      });
      const found = new Set(rows.map((r) => r.id));
      report.notFound = named.filter((id) => !found.has(id.toLowerCase()));
    } else {
      rows = await query(db, {
        text: `select id, event_id from ${schema}.dead_letter where consumer = $1 order by failed_at, id limit $2`,
        params: [opts.name, REPLAY_LIMIT],
      });
    }
    for (const { id, event_id } of rows) {
      const result = await replayOne(id, event_id);
      if (result.outcome === "replayed") report.replayed++;
      else if (result.outcome === "gone") report.notFound.push(id);
      else report.failed.push({ id, eventId: event_id, error: result.error });
    }
    const [left] = await query<{ n: number }>(db, {
      text: `select count(*)::int as n from ${schema}.dead_letter where consumer = $1 and not (id = any($2::uuid[]))`,
      params: [opts.name, rows.map((r) => r.id)],
    });
    report.remaining = left?.n ?? 0;
    logger.info(
      {
        consumer: opts.name,
        replayed: report.replayed,
        failed: report.failed.length,
        notFound: report.notFound.length,
        remaining: report.remaining,
      },
      "dead letters replayed",
    );
    return report;
  };
}

/** Dead letters of a consumer, newest first (for operators and tests). */
export async function listDeadLetters(db: Db, schema: string, consumer: string) {
  return query<{
    id: string;
    event_id: string | null;
    subject: string;
    error: string;
    deliveries: number;
    failed_at: Date;
  }>(db, {
    text: `select id, event_id, subject, error, deliveries, failed_at from ${schema}.dead_letter where consumer = $1 order by failed_at desc limit 100`,
    params: [consumer],
  });
}

/**
 * Every consumer's dead letters in `schema`, newest first (the admin port's /dead-letters); `id`
 * names one for POST /dead-letters/replay.
 */
export async function listAllDeadLetters(db: Db, schema: string) {
  return query(db, {
    text: `select id, consumer, event_id, subject, error, deliveries, failed_at from ${schema}.dead_letter order by failed_at desc limit 100`,
    params: [],
  });
}
