/**
 * `batch` mode: the messages that arrive together (up to `batch.size`) are applied by ONE
 * autocommitted statement, which must itself skip events it applied before. Events `batch.check`
 * refuses are dead-lettered alone before the statement is built; if the statement fails anyway,
 * each event is tried alone, so a bad one cannot hold the others back.
 */
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import type { JsMsg } from "@nats-io/jetstream";
import { type Db, query } from "../../db/sql.ts";
import { translateDbError } from "../../db/tx.ts";
import { otelContext, SpanStatusCode } from "../../otel.ts";
import { nakDelay } from "./acks.ts";
import type { ApplyMode, Deliveries } from "./delivery.ts";
import type { ConsumerRuntime } from "./options.ts";

export function batchMode(rt: ConsumerRuntime, deliveries: Deliveries): ApplyMode {
  const { db, logger, opts } = rt;
  const handler = opts.batch!;

  /** The handler's statement for `batch`, autocommitted. */
  async function applyStatement(batch: EventEnvelope[]): Promise<void> {
    try {
      await query(db, handler.statement(batch));
    } catch (err) {
      throw translateDbError(err);
    }
  }

  /** The messages that arrived together, one statement (see the module comment). */
  async function process(batch: JsMsg[]): Promise<void> {
    const { items, again } = await deliveries.collect(batch, handler.check);
    if (items.length === 0) {
      for (const m of again) m.nak(nakDelay(m.info.deliveryCount));
      return;
    }
    try {
      await otelContext.with(items[0]!.context, () => applyStatement(items.map((i) => i.event)));
      deliveries.appliedTogether(items, again);
    } catch (err) {
      for (const m of again) m.nak(nakDelay(m.info.deliveryCount));
      if (items.length === 1) {
        items[0]!.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
        await deliveries.failed(items[0]!.m, items[0]!.event, err);
      } else {
        logger.warn(
          { consumer: opts.name, events: items.length, err: (err as Error).message },
          "a batch failed; applying its events one by one",
        );
        for (const item of items) await deliveries.applyAlone(item, () => applyStatement([item.event]));
      }
    } finally {
      for (const { span } of items) span.end();
    }
  }

  /** `batch.check` and the statement for this one event, autocommitted; then `claim`. */
  async function applyStored(event: EventEnvelope, claim: (db: Db) => Promise<boolean>) {
    handler.check?.(event);
    await applyStatement([event]);
    // (The statement skips an event it applied before: "now" may have been before.)
    return (await claim(db)) ? ("now" as const) : undefined;
  }

  return { process, applyStored };
}
