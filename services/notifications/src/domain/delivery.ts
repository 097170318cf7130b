/**
 * Delivery attempts (webhooks and e-mails): at least once, retried with exponential backoff
 * (base, 2x base, 4x base ... with up to 20% jitter so retries of many deliveries spread; capped)
 * until the attempt limit, after which the delivery is a dead letter. Pure functions.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** The delay before attempt `attempt + 1`, after `attempt` failed ones (1-based). */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const plain = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
  return Math.round(Math.min(policy.maxDelayMs, plain * (1 + 0.2 * random())));
}

export type AttemptOutcome =
  | { state: "DELIVERED" }
  | { state: "PENDING"; delayMs: number; error: string }
  | { state: "DEAD"; error: string };

/** What follows attempt number `attempt` (1-based) that succeeded or failed with `error`. */
export function afterAttempt(
  policy: RetryPolicy,
  attempt: number,
  error: string | undefined,
  random?: () => number,
): AttemptOutcome {
  if (error === undefined) return { state: "DELIVERED" };
  if (attempt >= policy.maxAttempts) return { state: "DEAD", error };
  return { state: "PENDING", delayMs: retryDelay(policy, attempt, random), error };
}

/** The webhook body (the platform's WebHookEvent envelope): event, eventId and the entity. */
export const webhookBody = (e: { event: string; eventId: string; occurredAt: string; payload: unknown }) => ({
  event: e.event,
  eventId: e.eventId,
  created: e.occurredAt,
  payload: e.payload ?? null,
});
