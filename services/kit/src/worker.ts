/** Background work a service runs beside its RPC server: the {@link Worker} contract and a periodic one. */
import type { Logger } from "./logger.ts";

/** A long-running background task (outbox relay, event consumer) tied to the service's life
 * (service.ts starts the module's workers after listen and stops them, last started first, on close). */
export interface Worker {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A worker that runs `task` every `everyMs` (first run at start); errors are logged, not fatal. */
export function periodic(name: string, everyMs: number, logger: Logger, task: () => Promise<void>): Worker {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let running = false;
  const tick = () => {
    current = task()
      .catch((err) => logger.error({ err, worker: name }, "periodic task failed"))
      .finally(() => {
        if (running) timer = setTimeout(tick, everyMs);
      });
  };
  return {
    name,
    async start() {
      running = true;
      tick();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
    },
  };
}
