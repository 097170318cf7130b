/**
 * Deadlines across hops, so that a change is never applied after its caller was told it failed.
 *
 * Every RPC carries an absolute deadline (`x-fop-deadline`, epoch milliseconds) next to Connect's
 * relative timeout: a relative timeout restarts when a stalled process finally reads the request,
 * an absolute one does not. The kit's RPC client sets it (the earlier of its own timeout and the
 * deadline of the call it is part of); the kit's RPC server keeps a margin to answer in, refuses a
 * call whose deadline has already passed before running any of it, and runs the rest inside a scope
 * that {@link checkDeadline} reads: `inTransaction` checks it before it begins and again before it
 * commits, so a transaction either commits while the caller still waits or not at all.
 *
 * The comparison needs the nodes' clocks in sync (NTP); skew eats into the margin.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { AppError } from "./errors.ts";

export const DEADLINE_HEADER = "x-fop-deadline";

/**
 * The transaction-local Postgres setting a write puts the call's deadline in (epoch ms), and the
 * SQLSTATE its commit fails with when the deadline has passed by then (kit migration
 * `kit-events-0002`: a deferred trigger on the outbox checks it at commit).
 */
export const DEADLINE_SETTING = "fop.deadline";
export const DEADLINE_SQLSTATE = "FOPDL";

export interface CallScope {
  /** Epoch ms after which this call's own work must not start or commit (margin already taken). */
  readonly deadline: number | undefined;
  /** Aborted when the caller cancels or Connect's timeout passes. */
  readonly signal: AbortSignal | undefined;
}

const scope = new AsyncLocalStorage<CallScope>();

/** Runs `fn` as (part of) a call with this deadline and signal. */
export function runInCall<T>(s: CallScope, fn: () => T): T {
  return scope.run(s, fn);
}

/** The current call's scope, if the code runs inside an RPC. */
export const currentCall = (): CallScope | undefined => scope.getStore();

/** The error of work refused because its caller no longer waits: nothing was done, retry is safe. */
export const deadlineExceeded = () =>
  new AppError("unavailable", {
    code: "DEADLINE_EXCEEDED",
    summary: "The service could not handle the request in time.",
    description:
      "The request was not carried out: its deadline passed before the service could finish it. Nothing was changed; retry with exponential backoff.",
  });

/** Throws {@link deadlineExceeded} when the current call's deadline has passed or its caller gave up. */
export function checkDeadline(now = Date.now()): void {
  const s = scope.getStore();
  if (!s) return;
  if (s.signal?.aborted || (s.deadline !== undefined && now >= s.deadline)) throw deadlineExceeded();
}

/**
 * The deadline a server works to, from the caller's absolute deadline header: a margin before it,
 * so the server's own "not done" answer still reaches a caller that waits until the deadline
 * (a tenth of the remaining time, between 50 ms and 1 s). Undefined without a valid header.
 */
export function serverDeadline(header: string | null | undefined, now = Date.now()): number | undefined {
  const at = Number(header);
  if (!header || !Number.isSafeInteger(at) || at <= 0) return undefined;
  const margin = Math.min(1000, Math.max(50, (at - now) / 10));
  return at - margin;
}

/**
 * The absolute deadline to send with an outgoing call: `now + timeoutMs` (the call's own timeout),
 * capped by the deadline of the call this one is part of.
 */
export function outgoingDeadline(timeoutMs: number | undefined, now = Date.now()): number | undefined {
  const own = timeoutMs !== undefined && timeoutMs > 0 ? now + timeoutMs : undefined;
  const inherited = scope.getStore()?.deadline;
  if (own === undefined) return inherited;
  return inherited === undefined ? own : Math.min(own, inherited);
}
