/**
 * Our limits where the reference sets none (the picking README, "Limits", documents them). They
 * bound what one request can make the service do: render, aggregate, lock, store.
 */
import { invalid, precondition } from "@fop/kit/errors";

export const PICKING_LIMITS = {
  /** Lines of a pick job: on creation, and what splits may grow it to. */
  pickLineItems: 1000,
  /** Expected lines of a pick job. */
  expectedPickLineItems: 1000,
  /** Pick jobs in one pick run. */
  pickJobsPerRun: 100,
  /** Lines of a pick run: after aggregating its jobs' lines, and what splits may grow it to. */
  pickRunLineItems: 10_000,
} as const;

/** 400 when a request brings more than `limit` (`what`, at `field`). */
export function requireAtMost(count: number, limit: number, what: string, field: string): void {
  if (count > limit) {
    throw invalid(
      "LIMIT_EXCEEDED",
      `At most ${limit} ${what} are allowed; this request has ${count}.`,
      field,
    );
  }
}

/** 422 when an action would grow an entity beyond `limit`. */
export function requireStaysWithin(count: number, limit: number, what: string): void {
  if (count > limit) {
    throw precondition("LIMIT_EXCEEDED", `This would make ${count} ${what}; at most ${limit} are allowed.`);
  }
}
