/** A worker module for the tenant pool's tests: tasks that answer, spin, fail and crash. */
import { getPriority } from "node:os";
import { poolTask, threadId } from "../tenant-pool.ts";

export const echo = poolTask((p: { value: unknown }) => ({ value: p.value }));
/** Busy for `ms` milliseconds of CPU (blocks this worker's thread, as a render would). */
export const spin = poolTask((p: { ms: number; value?: unknown }) => {
  const until = Date.now() + p.ms;
  while (Date.now() < until) {}
  return { value: p.value };
});
export const bytes = poolTask((p: { size: number }) => ({ content: new Uint8Array(p.size).fill(7) }));
export const fail = poolTask(() => {
  throw new Error("no luck");
});
export const crash = poolTask(() => process.exit(3));
/** This worker thread's nice value. */
export const nice = poolTask(() => ({ value: getPriority(threadId()) }));
