import type { Logger } from "./logger.ts";
import type { Worker } from "./service.ts";

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
