import { getPriority } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { type TaskOutcome, TenantPool, threadId } from "./tenant-pool.ts";

const MODULE = new URL("./testing/pool-worker.ts", import.meta.url);
const pools: TenantPool[] = [];
function pool(opts: Partial<ConstructorParameters<typeof TenantPool>[0]> = {}) {
  const outcomes: TaskOutcome[] = [];
  const p = new TenantPool({
    module: MODULE,
    size: 2,
    perKey: 1,
    perKeyQueue: 2,
    what: "test task",
    onOutcome: (o) => outcomes.push(o),
    ...opts,
  });
  pools.push(p);
  return { p, outcomes };
}
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});
const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (e: { code?: string }) => e.code,
  );

describe("TenantPool", () => {
  it("runs tasks in worker threads and transfers byte results", async () => {
    const { p, outcomes } = pool();
    expect(await p.run("echo", { value: { a: [1] } }, { key: "t" })).toEqual({ value: { a: [1] } });
    const bytes = await p.run<{ content: Uint8Array }>("bytes", { size: 100_000 }, { key: "t" });
    expect(bytes.content.byteLength).toBe(100_000);
    expect(bytes.content[99_999]).toBe(7);
    expect(outcomes).toEqual(["done", "done"]);
  });

  it("keeps the event loop free while a task spins", async () => {
    const { p } = pool();
    const spinning = p.run("spin", { ms: 1000 }, { key: "t" });
    // A timer on this thread fires while the worker is still busy (were the task run here, the
    // timer could only fire after it).
    const first = await Promise.race([
      spinning.then(() => "task"),
      new Promise((r) => setTimeout(r, 20)).then(() => "timer"),
    ]);
    expect(first).toBe("timer");
    await spinning;
  });

  it("bounds one key: perKey running, perKeyQueue waiting, the rest refused at once (429)", async () => {
    const { p, outcomes } = pool({ size: 2, perKey: 1, perKeyQueue: 2 });
    // Both workers started (they start on first use), so only the tasks' own run times order them.
    await Promise.all([p.run("echo", {}, { key: "w1" }), p.run("echo", {}, { key: "w2" })]);
    const settled: (string | undefined)[] = [];
    const flood = Array.from({ length: 5 }, (_, i) =>
      code(p.run("spin", { ms: 400, value: i }, { key: "a" })).then((c) => {
        settled.push(c);
        return c;
      }),
    );
    // Another key is not stuck behind the flood: it gets the second worker and is answered while
    // the first of key a's tasks still runs (only the two refusals have settled by then).
    expect(await p.run("echo", { value: "b" }, { key: "b" })).toEqual({ value: "b" });
    expect(settled).toEqual(["TOO_MANY_TASKS", "TOO_MANY_TASKS"]);
    expect(await Promise.all(flood)).toEqual(["ok", "ok", "ok", "TOO_MANY_TASKS", "TOO_MANY_TASKS"]);
    expect(outcomes.filter((o) => o === "rejected")).toHaveLength(2);
  });

  it("admits before the payload exists: over the bound throws at once; a released place is free again", async () => {
    const { p, outcomes } = pool({ size: 1, perKey: 1, perKeyQueue: 1 });
    const first = p.admit({ key: "a" });
    const second = p.admit({ key: "a" });
    expect(() => p.admit({ key: "a" })).toThrow(expect.objectContaining({ code: "TOO_MANY_TASKS" }));
    expect(p.admit({ key: "b" })).toBeDefined(); // other keys are not affected
    second.release();
    second.release(); // a second release changes nothing
    const third = p.admit({ key: "a" });
    expect(await first.run("echo", { value: 1 })).toEqual({ value: 1 });
    expect(await third.run("echo", { value: 3 })).toEqual({ value: 3 });
    await expect(third.run("echo", {})).rejects.toThrow(/at most one task/);
    expect(outcomes).toEqual(["rejected", "done", "done"]);
  });

  it("bounds the instance: past maxQueue waiting in all, any key is refused at once (429)", async () => {
    const { p, outcomes } = pool({ size: 1, perKey: 1, perKeyQueue: 5, maxQueue: 2 });
    const a = p.admit({ key: "a" });
    p.admit({ key: "b" });
    expect(() => p.admit({ key: "c" })).toThrow(
      expect.objectContaining({
        code: "TOO_MANY_TASKS",
        description: expect.stringMatching(/on this instance/),
      }),
    );
    a.release();
    expect(p.admit({ key: "c" })).toBeDefined();
    expect(outcomes).toEqual(["rejected"]);
  });

  it("drops a waiting task whose caller gave up, without running it", async () => {
    const { p, outcomes } = pool({ size: 1, perKey: 1, perKeyQueue: 5 });
    const first = p.run("spin", { ms: 200 }, { key: "a" });
    const caller = new AbortController();
    const second = code(p.run("echo", { value: 2 }, { key: "a", signal: caller.signal }));
    caller.abort();
    expect(await second).toBe("DEADLINE_EXCEEDED");
    await first;
    expect(outcomes).toEqual(["dropped", "done"]);
    expect(p.stats().waiting).toBe(0);
  });

  it("terminates a running task at its deadline, freeing the worker for the next", async () => {
    const { p, outcomes } = pool({ size: 1, perKey: 2, perKeyQueue: 5 });
    const started = performance.now();
    const long = code(p.run("spin", { ms: 5000 }, { key: "a", deadline: Date.now() + 100 }));
    const next = p.run("echo", { value: "next" }, { key: "a" });
    expect(await long).toBe("DEADLINE_EXCEEDED");
    expect(await next).toEqual({ value: "next" });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(outcomes).toEqual(["terminated", "done"]);
  });

  it("refuses work past its deadline before queueing it", async () => {
    const { p, outcomes } = pool();
    expect(await code(p.run("echo", {}, { key: "a", deadline: Date.now() - 1 }))).toBe("DEADLINE_EXCEEDED");
    expect(outcomes).toEqual(["dropped"]);
  });

  it("a failing task is a 500; a crashing worker is replaced", async () => {
    const { p, outcomes } = pool({ size: 1 });
    expect(await code(p.run("fail", {}, { key: "a" }))).toBe("TASK_FAILED");
    expect(await code(p.run("crash", {}, { key: "a" }))).toBe("TASK_FAILED");
    expect(await p.run("echo", { value: "after" }, { key: "a" })).toEqual({ value: "after" });
    expect(outcomes).toEqual(["failed", "failed", "done"]);
  });

  it("runs its workers at the given nice value, leaving the calling thread's own", async () => {
    const before = getPriority(threadId());
    const { p } = pool({ nice: 15 });
    expect(await p.run("nice", {}, { key: "a" })).toEqual({ value: Math.max(15, before) });
    expect(getPriority(threadId())).toBe(before);
    const { p: plain } = pool();
    expect(await plain.run("nice", {}, { key: "a" })).toEqual({ value: before });
  });

  it("close() fails what waits and runs, and refuses new work", async () => {
    const { p } = pool({ size: 1, perKey: 1, perKeyQueue: 3 });
    const running = code(p.run("spin", { ms: 2000 }, { key: "a" }));
    const waiting = code(p.run("echo", {}, { key: "a" }));
    await new Promise((r) => setTimeout(r, 50));
    await p.close();
    expect(await running).toBe("SHUTTING_DOWN");
    expect(await waiting).toBe("SHUTTING_DOWN");
    expect(await code(p.run("echo", {}, { key: "a" }))).toBe("SHUTTING_DOWN");
  });
});
