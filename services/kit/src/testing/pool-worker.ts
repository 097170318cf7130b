/** A worker module for the worker pool's tests: tasks that answer, spin, fail and crash. */
import { getPriority } from "node:os";
import { serveTasks, threadId } from "../worker-pool.ts";

serveTasks({
  echo: (p: { value: unknown }) => ({ value: p.value }),
  /** Busy for `ms` milliseconds of CPU (blocks this worker's thread, as a render would). */
  spin: (p: { ms: number; value?: unknown }) => {
    const until = Date.now() + p.ms;
    while (Date.now() < until) {}
    return { value: p.value };
  },
  bytes: (p: { size: number }) => ({ content: new Uint8Array(p.size).fill(7) }),
  fail: () => {
    throw new Error("no luck");
  },
  crash: () => process.exit(3),
  /** This worker thread's nice value. */
  nice: () => ({ value: getPriority(threadId()) }),
});
