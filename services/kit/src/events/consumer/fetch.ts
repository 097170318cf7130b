/**
 * The fetch loop: pulls from the consumer's durables, gathers the messages that arrive together
 * (within `gatherMs` of a batch's first: CONSUMER_GATHER_MS) into batches and hands them to the
 * apply mode, at most `concurrency` at once; after a failure it sets the durables up again and
 * starts over.
 */
import type { JsMsg } from "@nats-io/jetstream";
import type { ConsumerRuntime } from "./options.ts";

/** How long one pull request waits for messages (its idle heartbeat: half of it). */
const PULL_EXPIRES_MS = 5_000;

export interface FetchLoop {
  /** Reads until `running()` turns false: sets the durables up, consumes them, retries after failures. */
  run(): Promise<void>;
  /** Ends the reads in progress (what is still buffered goes back); `run` then ends once `running()` is false. */
  stop(): void;
  /** The batches being processed. */
  inFlight: Set<Promise<void>>;
}

export function fetchLoop(
  rt: ConsumerRuntime,
  o: {
    /** The durables to read, set up (durable.ts). */
    ensureDurables: () => Promise<string[]>;
    /** Applies and settles a batch (the apply mode). */
    process: (batch: JsMsg[]) => Promise<void>;
    running: () => boolean;
  },
): FetchLoop {
  const { nats, logger, opts, concurrency, batchSize, gatherMs } = rt;
  const stream = nats.events.stream;
  const stops = new Set<() => void>();
  const inFlight = new Set<Promise<void>>();

  /** Reads durable `name` until it stops (stop() or an error, thrown). */
  async function consumeFrom(name: string): Promise<void> {
    const consumer = await nats.js.consumers.get(stream, name);
    // Pulls expire after 5 s (heartbeats every 2.5 s) instead of nats.js's 30 s: a consumer whose
    // NATS server died (a cluster member SIGKILLed) notices missed heartbeats and pulls again from
    // another server within seconds, not ~40 s later (measured with npm start --nats-cluster).
    const messages = await consumer.consume({
      max_messages: Math.max(concurrency * 2, batchSize * 2),
      expires: PULL_EXPIRES_MS,
    });
    const stop = () => void messages.stop();
    stops.add(stop);
    try {
      if (!o.running()) stop(); // stop() came while this was being set up
      // A batch is the messages that arrive within `gatherMs` of its first (with 0: until the next
      // turn of the event loop, those that came off the socket in one read), or `batchSize` of them.
      let pending: JsMsg[] = [];
      let scheduled = false;
      const flush = () => {
        scheduled = false;
        const batch = pending;
        pending = [];
        if (batch.length === 0) return;
        const p = o
          .process(batch)
          .catch((err) => logger.error({ err }, "event processing crashed"))
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
      };
      for await (const m of messages) {
        // Stopping: what is still buffered goes back at once (another replica takes it).
        if (!o.running()) {
          m.nak();
          continue;
        }
        pending.push(m);
        if (pending.length >= batchSize) {
          while (inFlight.size >= concurrency) await Promise.race(inFlight);
          flush();
        } else if (!scheduled) {
          scheduled = true;
          const due = async () => {
            while (inFlight.size >= concurrency) await Promise.race(inFlight);
            flush();
          };
          if (gatherMs > 0) setTimeout(due, gatherMs);
          else setImmediate(due);
        }
      }
      flush();
    } finally {
      stops.delete(stop);
    }
  }

  const stopAll = () => {
    for (const stop of [...stops]) stop();
  };

  async function run(): Promise<void> {
    let failures = 0;
    while (o.running()) {
      try {
        const names = await o.ensureDurables();
        failures = 0;
        // Its own durable and, after a migration, the legacy one; when one fails, both start over.
        const results = await Promise.allSettled(
          names.map((name) =>
            consumeFrom(name).catch((err) => {
              stopAll();
              throw err;
            }),
          ),
        );
        const failure = results.find((r) => r.status === "rejected");
        if (failure) throw failure.reason;
      } catch (err) {
        if (!o.running()) break;
        failures++;
        if (failures === 1 || failures % 20 === 0)
          logger.warn({ consumer: opts.name, err: (err as Error).message }, "consumer interrupted; retrying");
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(failures, 5))));
      }
    }
  }

  return { run, stop: stopAll, inFlight };
}
