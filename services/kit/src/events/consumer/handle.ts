/**
 * `handle` mode: the messages that arrive together share one transaction, in which ONE statement
 * writes their inbox rows (consumer, event id) and the handler runs for the events not applied
 * before; if that transaction fails, each event is tried in its own.
 */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import type { JsMsg } from "@nats-io/jetstream";
import { type Db, query } from "../../db/sql.ts";
import { inTransaction } from "../../db/tx.ts";
import { otelContext } from "../../otel.ts";
import { nakDelay } from "./acks.ts";
import type { ApplyMode, Deliveries, Item } from "./delivery.ts";
import type { ConsumerRuntime } from "./options.ts";

export function handleMode(rt: ConsumerRuntime, deliveries: Deliveries): ApplyMode {
  const { db, logger, schema, opts } = rt;
  const handle = opts.handle!;

  /**
   * In the transaction `tx`: the inbox row, then the handler; false (and nothing done) when the
   * inbox lists the event already (applied before).
   */
  async function applyHandled(tx: Db, event: EventEnvelope): Promise<boolean> {
    const fresh = await query(tx, {
      text: `insert into ${schema}.inbox (consumer, event_id) values ($1, $2) on conflict do nothing returning 1 as ok`,
      params: [opts.name, event.id],
    });
    if (fresh.length === 0) return false;
    await handle(tx, event);
    return true;
  }

  /** Inbox rows for `events` in one statement: the ids of those not applied before. */
  async function freshIds(tx: Db, events: EventEnvelope[]): Promise<Set<string>> {
    const rows = await query<{ event_id: string }>(tx, {
      text: `insert into ${schema}.inbox (consumer, event_id) select $1, unnest($2::uuid[]) on conflict do nothing returning event_id`,
      params: [opts.name, events.map((e) => e.id)],
    });
    return new Set(rows.map((r) => r.event_id));
  }

  /** One message in its own transaction. */
  async function processOne(item: Item): Promise<void> {
    // An event processed before is acknowledged again, with nothing done.
    await deliveries.applyAlone(item, () => inTransaction(db, (tx) => applyHandled(tx, item.event)));
  }

  /** The messages that arrived together in one transaction, with one inbox statement; if it fails, each alone. */
  async function process(batch: JsMsg[]): Promise<void> {
    const { items, again } = await deliveries.collect(batch);
    try {
      if (items.length > 1) {
        try {
          await otelContext.with(items[0]!.context, () =>
            inTransaction(db, async (tx) => {
              const fresh = await freshIds(
                tx,
                items.map((i) => i.event),
              );
              for (const { event } of items) if (fresh.has(event.id)) await handle(tx, event);
            }),
          );
          deliveries.appliedTogether(items, again);
          return;
        } catch (err) {
          logger.warn(
            { consumer: opts.name, events: items.length, err: (err as Error).message },
            "a transaction of several events failed; applying them one by one",
          );
        }
      }
      for (const item of items) await processOne(item);
      for (const m of again) m.nak(nakDelay(m.info.deliveryCount));
    } finally {
      for (const { span } of items) span.end();
    }
  }

  /** The inbox row and the handler in one transaction, after `claim` (nothing applied without a claim). */
  async function applyStored(event: EventEnvelope, claim: (db: Db) => Promise<boolean>) {
    return inTransaction(db, async (tx) => {
      if (!(await claim(tx))) return undefined;
      return (await applyHandled(tx, event)) ? ("now" as const) : ("before" as const);
    });
  }

  return { process, applyStored };
}
