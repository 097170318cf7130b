/**
 * CPU-heavy work (rendering documents, ...) off the event loop, in piscina's worker threads, with a
 * small per-tenant queue in front of it, so a burst of it never stalls the RPCs every tenant is
 * waiting for and one tenant's flood never waits in front of another's work.
 *
 * - At most `size` tasks run at once (piscina's `maxThreads`); the rest wait here, in one FIFO
 *   queue, and go to piscina only when a thread is free for them, oldest first, skipping a key that
 *   has `perKey` running. (piscina's own queue is one FIFO for all: it would serve a flood first.)
 * - Admission, per key (the tenant): at most `perKey` run and `perKeyQueue` wait; beyond that a task
 *   is refused at once with 429 `TOO_MANY_TASKS`, and so is any task once `maxQueue` wait in all.
 * - Deadlines: a task whose caller gave up (its signal aborted, or its deadline passed) is dropped
 *   if it still waits here; if it runs, its piscina signal is aborted, so piscina terminates the
 *   thread (the CPU is freed at once) and starts another. Either way the task fails with 503
 *   `DEADLINE_EXCEEDED`.
 * - A task that throws, or whose thread dies, fails with 500 `TASK_FAILED`; piscina replaces the thread.
 * - `nice`: the threads run at that scheduling priority (0-19; higher yields more; never raised), so
 *   the CPU goes to the event loops answering requests whenever both want it. Linux keeps a nice
 *   value per thread, so only the pool's threads are lowered: each sets its own (node:os
 *   setPriority on its thread id) when it loads its task module; elsewhere nothing changes.
 *   piscina's `niceIncrement` is not used: it needs the optional native `@napi-rs/nice`, which the
 *   image build leaves out (`npm ci --omit=optional`, deploy/docker/Dockerfile), so in production
 *   it would silently do nothing.
 *
 * A worker module exports its tasks, each wrapped in {@link poolTask} (results' ArrayBuffers are
 * transferred, not copied). Threads start on first use and do not keep an idle process alive;
 * {@link TenantPool.close} ends them.
 */
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, workerData } from "node:worker_threads";
import { move, Piscina, transferableSymbol, valueSymbol } from "piscina";
import { deadlineExceeded } from "./deadline.ts";
import { AppError } from "./errors.ts";

export interface TenantPoolOptions {
  /** The worker module (its tasks are exports wrapped in poolTask). A .ts module runs with --conditions=source. */
  module: URL;
  /** Threads (tasks running at once). */
  size: number;
  /** Tasks of one key running at once. */
  perKey: number;
  /** Tasks of one key waiting, beyond those running. */
  perKeyQueue: number;
  /** Tasks waiting in all (default: size x 64). */
  maxQueue?: number;
  /** What a task is, for error messages, e.g. "document render". */
  what: string;
  /** The threads' nice value (0-19). Default: the process's own. */
  nice?: number | undefined;
  /** Called with the outcome of every task (metrics). */
  onOutcome?: (outcome: TaskOutcome) => void;
}

/** A place admitted by {@link TenantPool.admit}: run one task with it, or release it. */
export interface Ticket {
  run<T>(name: string, payload: unknown): Promise<T>;
  /** Gives the place back without running anything (no-op after run). */
  release(): void;
}

export type TaskOutcome = "done" | "rejected" | "dropped" | "terminated" | "failed";

export interface RunOptions {
  /** Fairness and the per-key bound (the tenant). */
  key: string;
  /** The caller gave up when this aborts. */
  signal?: AbortSignal | undefined;
  /** Epoch ms after which the result is of no use. */
  deadline?: number | undefined;
}

/**
 * In a worker module: one task, exported under its name (`export const render = poolTask(...)`).
 * The ArrayBuffers of its result (itself, or its direct fields) are transferred to the caller.
 */
export function poolTask<P, R>(handler: (payload: P) => R | Promise<R>): (payload: P) => Promise<unknown> {
  return async (payload) => {
    const result: unknown = await handler(payload);
    const transfer = transferables(result);
    // piscina transfers what a "movable" lists and sends its value.
    return transfer.length
      ? move({ [transferableSymbol]: transfer, [valueSymbol]: result as object })
      : result;
  };
}

/** How a pool thread learns its nice value (piscina passes `workerData` to every thread). */
interface PoolWorkerData {
  tenantPoolNice?: number;
}

// In a pool thread (its task module imports this one): its own priority, before the first task.
const niceOfThread = isMainThread ? undefined : (workerData as PoolWorkerData | undefined)?.tenantPoolNice;
if (niceOfThread) lowerThreadPriority(niceOfThread);

/**
 * Sets this thread's nice value (Linux: setpriority on the thread id, which only this thread has).
 * Best effort: where threads have no id of their own in /proc, nothing changes.
 */
function lowerThreadPriority(nice: number): void {
  const tid = threadId();
  if (tid === undefined) return;
  const target = Math.min(19, Math.max(getPriority(tid), nice)); // never raise it
  if (target !== getPriority(tid)) setPriority(tid, target);
}

/** This thread's kernel id (Linux), or undefined. */
export function threadId(): number | undefined {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    return Number.isSafeInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** The ArrayBuffers directly inside `v` (one level), to transfer rather than copy. */
function transferables(v: unknown): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  const add = (x: unknown) => {
    if (x instanceof ArrayBuffer) out.push(x);
    else if (ArrayBuffer.isView(x) && x.byteOffset === 0 && x.byteLength === x.buffer.byteLength)
      out.push(x.buffer as ArrayBuffer);
  };
  add(v);
  if (v && typeof v === "object") for (const x of Object.values(v)) add(x);
  return out;
}

const shuttingDown = () =>
  new AppError("unavailable", { code: "SHUTTING_DOWN", description: "The service is shutting down." });

interface Task {
  name: string;
  payload: unknown;
  key: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Set once it runs: aborting it makes piscina terminate the thread. */
  running?: AbortController;
  /** piscina has answered (its thread is free again or gone). */
  answered: boolean;
  settled: boolean;
  cleanup: () => void;
}

/** A day: threads idle that long end (piscina's idle timer; it must stay below 2^31 ms). */
const IDLE_MS = 86_400_000;

export class TenantPool {
  private readonly opts: TenantPoolOptions;
  private readonly piscina: Piscina;
  private readonly queue: Task[] = [];
  private readonly runningTasks = new Set<Task>();
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, number>();
  private closed = false;
  /** Tasks admitted whose ticket has not run or been released yet. */
  private admitted = 0;

  constructor(opts: TenantPoolOptions) {
    this.opts = opts;
    const fromSource = opts.module.pathname.endsWith(".ts");
    this.piscina = new Piscina({
      filename: fileURLToPath(opts.module),
      minThreads: 0,
      maxThreads: opts.size,
      idleTimeout: IDLE_MS,
      execArgv: fromSource ? ["--conditions=source"] : [],
      workerData: { tenantPoolNice: opts.nice ?? 0 } satisfies PoolWorkerData,
    });
    // A thread that fails with no task on it: piscina has replaced it; nobody is waiting for it.
    this.piscina.on("error", () => {});
  }

  /** Runs `name` with `payload` in a thread; see the module comment for bounds and deadlines. */
  run<T>(name: string, payload: unknown, opts: RunOptions): Promise<T> {
    let ticket: Ticket;
    try {
      ticket = this.admit(opts);
    } catch (err) {
      return Promise.reject(err);
    }
    return ticket.run<T>(name, payload);
  }

  /**
   * Admits one task of `opts.key` now, before its payload exists: throws what {@link run} would
   * reject with (429 over the bounds, 503 past the deadline or shutting down), else holds a waiting
   * place until the ticket runs the task or is released. So a caller can refuse a flood before
   * doing any work for it (loading what the task needs).
   */
  admit(opts: RunOptions): Ticket {
    if (this.closed) throw shuttingDown();
    if (gaveUp(opts)) {
      this.opts.onOutcome?.("dropped");
      throw deadlineExceeded();
    }
    const queued = this.waiting.get(opts.key) ?? 0;
    const overKey = (this.running.get(opts.key) ?? 0) + queued >= this.opts.perKey + this.opts.perKeyQueue;
    if (overKey || this.queue.length + this.admitted >= (this.opts.maxQueue ?? this.opts.size * 64)) {
      this.opts.onOutcome?.("rejected");
      throw new AppError("rate_limited", {
        code: "TOO_MANY_TASKS",
        summary: "Too many requests of this kind at once.",
        description: `Too many ${this.opts.what}s are running or waiting ${overKey ? "for this tenant" : "on this instance"}; retry shortly.`,
      });
    }
    this.waiting.set(opts.key, queued + 1);
    this.admitted++;
    let open = true;
    const release = () => {
      if (!open) return false;
      open = false;
      this.admitted--;
      this.count(this.waiting, opts.key, -1);
      return true;
    };
    return {
      run: <T>(name: string, payload: unknown) => {
        if (!release()) return Promise.reject(new Error("a pool ticket runs at most one task"));
        return this.enqueue<T>(name, payload, opts);
      },
      release: () => void release(),
    };
  }

  /** Queues an admitted task (its waiting place is taken again here). */
  private enqueue<T>(name: string, payload: unknown, opts: RunOptions): Promise<T> {
    if (this.closed) return Promise.reject(shuttingDown());
    if (gaveUp(opts)) {
      this.opts.onOutcome?.("dropped");
      return Promise.reject(deadlineExceeded());
    }
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        name,
        payload,
        key: opts.key,
        resolve: resolve as (v: unknown) => void,
        reject,
        answered: false,
        settled: false,
        cleanup: () => {},
      };
      // The caller gives up: drop the task if it waits, terminate its thread if it runs.
      const giveUp = () => this.abandon(task);
      const timer =
        opts.deadline === undefined ? undefined : setTimeout(giveUp, Math.max(0, opts.deadline - Date.now()));
      opts.signal?.addEventListener("abort", giveUp);
      task.cleanup = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", giveUp);
      };
      this.queue.push(task);
      this.count(this.waiting, task.key, +1);
      this.dispatch();
    });
  }

  /** Fails what waits and runs, refuses new work, and ends the threads. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) {
      this.count(this.waiting, t.key, -1);
      this.settle(t, "failed", shuttingDown());
    }
    for (const t of [...this.runningTasks]) this.settle(t, "failed", shuttingDown());
    await this.piscina.destroy();
  }

  /** Tasks running and waiting, and the threads (for tests and metrics). */
  stats(): { running: number; waiting: number; workers: number } {
    return {
      running: this.runningTasks.size,
      waiting: this.queue.length,
      workers: this.piscina.threads.length,
    };
  }

  /** Hands waiting tasks to piscina while it has a thread for them, oldest first, skipping keys at their bound. */
  private dispatch(): void {
    if (this.closed) return;
    for (let i = 0; i < this.queue.length && this.runningTasks.size < this.opts.size; ) {
      const task = this.queue[i]!;
      if ((this.running.get(task.key) ?? 0) >= this.opts.perKey) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      this.count(this.waiting, task.key, -1);
      this.start(task);
    }
  }

  private start(task: Task): void {
    const abort = new AbortController();
    task.running = abort;
    this.runningTasks.add(task);
    this.count(this.running, task.key, +1);
    this.piscina.run(task.payload, { name: task.name, signal: abort.signal }).then(
      (result) => {
        task.answered = true;
        this.settle(task, "done", undefined, result);
      },
      (err: unknown) => {
        task.answered = true;
        // An abort was settled by whoever aborted (abandon, close): settle does nothing then.
        this.settle(
          task,
          "failed",
          new AppError("internal", {
            code: "TASK_FAILED",
            description: `The ${this.opts.what} failed.`,
            cause: err,
          }),
        );
      },
    );
  }

  private abandon(task: Task): void {
    const i = this.queue.indexOf(task);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.count(this.waiting, task.key, -1);
      this.settle(task, "dropped", deadlineExceeded());
      return;
    }
    if (task.running && !task.settled) {
      // Running: piscina terminates its thread now; the CPU goes to the next task.
      this.settle(task, "terminated", deadlineExceeded());
    }
  }

  /** Settles a task once: its outcome, its promise, its running place (stopping its thread if it still runs). */
  private settle(task: Task, outcome: TaskOutcome, error?: unknown, result?: unknown): void {
    if (task.settled) return;
    task.settled = true;
    task.cleanup();
    if (task.running) {
      this.runningTasks.delete(task);
      this.count(this.running, task.key, -1);
      if (!task.answered) task.running.abort();
    }
    this.opts.onOutcome?.(outcome);
    if (error) task.reject(error);
    else task.resolve(result);
    this.dispatch();
  }

  private count(m: Map<string, number>, key: string, delta: number): void {
    const n = (m.get(key) ?? 0) + delta;
    if (n <= 0) m.delete(key);
    else m.set(key, n);
  }
}

const gaveUp = (opts: RunOptions) =>
  opts.signal?.aborted === true || (opts.deadline !== undefined && Date.now() >= opts.deadline);
