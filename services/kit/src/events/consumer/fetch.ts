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
  /** Sets the durables up again and reads the ones listed now (lanes.ts: another replica made one). */
  refresh(): void;
  /** The batches being processed. */
  inFlight: Set<Promise<void>>;
}

export function fetchLoop(
  rt: ConsumerRuntime,
  o: {
    /** The durables to read, set up (durable.ts, lanes.ts). */
    ensureDurables: () => Promise<string[]>;
    /** Applies and settles a batch (the apply mode). */
    process: (batch: JsMsg[]) => Promise<void>;
    running: () => boolean;
  },
): FetchLoop {
  const { nats, logger, opts, concurrency, batchSize, gatherMs } = rt;
  const stream = nats.events.stream;
  /** How to stop the reading of each durable being read. */
  const stops = new Map<string, () => void>();
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
    stops.set(name, stop);
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
      if (stops.get(name) === stop) stops.delete(name);
    }
  }

  const stopAll = () => {
    for (const stop of [...stops.values()]) stop();
  };

  /** Wakes `run` to set the durables up again (refresh) or to handle a reading that ended. */
  let signalled = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    signalled = true;
    wake?.();
  };

  async function run(): Promise<void> {
    let failures = 0;
    /** The durables being read, each until it is stopped or fails. */
    const reading = new Map<string, Promise<void>>();
    let failure: { err: unknown } | undefined;
    while (o.running()) {
      try {
        signalled = false;
        const names = await o.ensureDurables();
        failures = 0;
        // Durables no longer listed are stopped; the others keep reading (stopping one leaves
        // what the server sent it meanwhile to be redelivered after ack_wait).
        for (const name of reading.keys()) if (!names.includes(name)) stops.get(name)?.();
        for (const name of names) {
          if (reading.has(name)) continue;
          const p = consumeFrom(name)
            .catch((err) => {
              failure ??= { err };
            })
            .finally(() => {
              reading.delete(name);
              signal();
            });
          reading.set(name, p);
        }
        if (!signalled && o.running()) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (failure) {
          // When one fails, all start over (its own durable and, after a migration, the legacy one).
          stopAll();
          await Promise.all(reading.values());
          const { err } = failure;
          failure = undefined;
          throw err;
        }
      } catch (err) {
        if (!o.running()) break;
        failures++;
        if (failures === 1 || failures % 20 === 0)
          logger.warn({ consumer: opts.name, err: (err as Error).message }, "consumer interrupted; retrying");
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(failures, 5))));
      }
    }
    stopAll();
    await Promise.all(reading.values());
  }

  return {
    run,
    stop: () => {
      stopAll();
      signal();
    },
    refresh: signal,
    inFlight,
  };
}
