/**
 * CPU-heavy work (rendering documents, ...) off the event loop, in a pool of worker threads, so a
 * burst of it never stalls the RPCs every tenant is waiting for.
 *
 * - At most `size` tasks run at once (one per worker); the rest wait in one FIFO queue.
 * - Per key (the tenant): at most `perKey` run at once and `perKeyQueue` wait; beyond that a task is
 *   refused at once with 429 `TOO_MANY_TASKS` — one tenant's flood waits behind itself, not in front
 *   of the others, and cannot grow the queue without bound. The whole queue is bounded too.
 * - Deadlines: a task whose caller gave up (its signal aborted, or its deadline passed) is dropped if
 *   it still waits, and if it runs its worker is terminated (the CPU is freed at once) and replaced.
 *   Either way the task fails with 503 `DEADLINE_EXCEEDED`.
 * - A worker that crashes fails its task (500) and is replaced.
 *
 * - Workers may run at a lower scheduling priority (`nice`): the CPU then goes to the event loops
 *   answering requests whenever both want it, and tasks get what is left.
 *
 * A worker module calls {@link serveTasks} with its task handlers; results may carry ArrayBuffers,
 * which are transferred, not copied. Workers start on first use; {@link WorkerPool.close} ends them.
 */
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { deadlineExceeded } from "./deadline.ts";
import { AppError } from "./errors.ts";

export interface WorkerPoolOptions {
  /** The worker module (it calls serveTasks). A .ts module runs with --conditions=source. */
  module: URL;
  /** Workers (tasks running at once). */
  size: number;
  /** Tasks of one key running at once. */
  perKey: number;
  /** Tasks of one key waiting, beyond those running. */
  perKeyQueue: number;
  /** Tasks waiting in all (default: size x 64). */
  maxQueue?: number;
  /** What a task is, for error messages, e.g. "document render". */
  what: string;
  /**
   * The workers' nice value (0-19; higher yields more). Linux keeps one per thread, so only the
   * workers are lowered; elsewhere it is ignored. Default 0 (as the process).
   */
  nice?: number;
  /** Called with the outcome of every task (metrics). */
  onOutcome?: (outcome: TaskOutcome) => void;
}

/** A place admitted by {@link WorkerPool.admit}: run one task with it, or release it. */
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

interface Task {
  id: number;
  name: string;
  payload: unknown;
  key: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  worker?: PoolWorker;
  cleanup: () => void;
}

interface PoolWorker {
  thread: Worker;
  task?: Task;
}

interface Reply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

/** What a worker module exports to the pool: task name -> handler. */
export type TaskHandlers = Record<string, (payload: never) => unknown>;

/** In a worker module: answers the pool's tasks with `handlers` (transfers ArrayBuffers in results). */
export function serveTasks(handlers: TaskHandlers): void {
  if (isMainThread || !parentPort) throw new Error("serveTasks runs in a worker thread");
  const nice = (workerData as { nice?: number } | undefined)?.nice;
  if (nice) lowerThreadPriority(nice);
  const port = parentPort;
  port.on("message", async (msg: { id: number; name: string; payload: unknown }) => {
    try {
      const handler = Object.hasOwn(handlers, msg.name) ? handlers[msg.name] : undefined;
      if (!handler) throw new Error(`no task ${msg.name}`);
      const result = await handler(msg.payload as never);
      port.postMessage({ id: msg.id, ok: true, result } satisfies Reply, transferables(result));
    } catch (err) {
      port.postMessage({ id: msg.id, ok: false, error: (err as Error).message } satisfies Reply);
    }
  });
}

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

export class WorkerPool {
  private readonly opts: WorkerPoolOptions;
  private readonly workers: PoolWorker[] = [];
  private readonly queue: Task[] = [];
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, number>();
  private nextId = 1;
  private closed = false;
  /** Tasks admitted whose ticket has not run or been released yet. */
  private admitted = 0;

  constructor(opts: WorkerPoolOptions) {
    this.opts = opts;
  }

  /** Runs `name` with `payload` in a worker; see the module comment for bounds and deadlines. */
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
    if (opts.signal?.aborted || (opts.deadline !== undefined && Date.now() >= opts.deadline)) {
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
    if (opts.signal?.aborted || (opts.deadline !== undefined && Date.now() >= opts.deadline)) {
      this.opts.onOutcome?.("dropped");
      return Promise.reject(deadlineExceeded());
    }
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        name,
        payload,
        key: opts.key,
        resolve: resolve as (v: unknown) => void,
        reject,
        cleanup: () => {},
      };
      // The caller gives up: drop the task if it waits, terminate its worker if it runs.
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

  /** Terminates every worker; waiting and running tasks fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) {
      this.count(this.waiting, t.key, -1);
      this.settle(t, "failed", shuttingDown());
    }
    const workers = this.workers.splice(0);
    for (const w of workers) if (w.task) this.settle(w.task, "failed", shuttingDown());
    await Promise.all(workers.map((w) => w.thread.terminate()));
  }

  /** Tasks running and waiting (for tests and metrics). */
  stats(): { running: number; waiting: number; workers: number } {
    return {
      running: this.workers.filter((w) => w.task).length,
      waiting: this.queue.length,
      workers: this.workers.length,
    };
  }

  private spawn(): PoolWorker {
    const fromSource = this.opts.module.pathname.endsWith(".ts");
    const w: PoolWorker = {
      thread: new Worker(this.opts.module, {
        execArgv: fromSource ? ["--conditions=source"] : [],
        workerData: { nice: this.opts.nice ?? 0 },
      }),
    };
    w.thread.on("message", (reply: Reply) => {
      const task = w.task;
      if (!task || task.id !== reply.id) return;
      w.task = undefined;
      if (reply.ok) this.settle(task, "done", undefined, reply.result);
      else
        this.settle(
          task,
          "failed",
          new AppError("internal", {
            code: "TASK_FAILED",
            description: `The ${this.opts.what} failed.`,
            cause: reply.error,
          }),
        );
      this.dispatch();
    });
    const lost = (why: unknown) => {
      const i = this.workers.indexOf(w);
      if (i < 0) return; // terminated on purpose (abandon / close)
      this.workers.splice(i, 1);
      if (w.task)
        this.settle(
          w.task,
          "failed",
          new AppError("internal", {
            code: "TASK_FAILED",
            description: `The ${this.opts.what} failed.`,
            cause: why,
          }),
        );
      w.task = undefined;
      this.dispatch();
    };
    w.thread.on("error", lost);
    w.thread.on("exit", (code) => lost(new Error(`worker exited with ${code}`)));
    // An idle pool does not keep the process alive.
    w.thread.unref();
    this.workers.push(w);
    return w;
  }

  /** Starts waiting tasks on free workers, oldest first, skipping keys at their running bound. */
  private dispatch(): void {
    if (this.closed) return;
    for (let i = 0; i < this.queue.length; ) {
      const task = this.queue[i]!;
      if ((this.running.get(task.key) ?? 0) >= this.opts.perKey) {
        i++;
        continue;
      }
      let worker = this.workers.find((w) => !w.task);
      if (!worker && this.workers.length < this.opts.size) worker = this.spawn();
      if (!worker) return;
      this.queue.splice(i, 1);
      this.count(this.waiting, task.key, -1);
      this.count(this.running, task.key, +1);
      task.worker = worker;
      worker.task = task;
      worker.thread.ref();
      worker.thread.postMessage({ id: task.id, name: task.name, payload: task.payload });
    }
  }

  private abandon(task: Task): void {
    const i = this.queue.indexOf(task);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.count(this.waiting, task.key, -1);
      task.cleanup();
      this.opts.onOutcome?.("dropped");
      task.reject(deadlineExceeded());
      return;
    }
    const w = task.worker;
    if (w && w.task === task) {
      // Running: stop it now, the CPU goes to the next task.
      const at = this.workers.indexOf(w);
      if (at >= 0) this.workers.splice(at, 1);
      w.task = undefined;
      void w.thread.terminate();
      this.settle(task, "terminated", deadlineExceeded());
      this.dispatch();
    }
  }

  private settle(task: Task, outcome: TaskOutcome, error?: unknown, result?: unknown): void {
    task.cleanup();
    if (task.worker) {
      this.count(this.running, task.key, -1);
      task.worker.thread.unref();
      task.worker = undefined;
    }
    this.opts.onOutcome?.(outcome);
    if (error) task.reject(error);
    else task.resolve(result);
  }

  private count(m: Map<string, number>, key: string, delta: number): void {
    const n = (m.get(key) ?? 0) + delta;
    if (n <= 0) m.delete(key);
    else m.set(key, n);
  }
}
