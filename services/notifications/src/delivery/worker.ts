/**
 * The delivery worker: claims due deliveries (webhooks, e-mails) from the `delivery` table and runs
 * up to `concurrency` attempts at once, each bounded by its timeout, so a slow or failing receiver
 * holds one slot for at most one timeout and never the event stream (the dispatch consumer only
 * inserts rows) or other subscriptions. Claims are leases (row locks are not held while sending),
 * so several replicas share the work and a crashed attempt is retried after its lease: at least
 * once. Each outcome is settled by delivery.ts's policy: delivered, retried after backoff, or dead.
 */
import type { SqlPool } from "@fop/kit/db/sql";
import type { Logger } from "@fop/kit/logger";
import { createCounter, type Metrics } from "@fop/kit/metrics";
import type { Sealer } from "@fop/kit/seal";
import type { Worker } from "@fop/kit/worker";
import { claimDue, type DueDelivery, settleDelivery } from "../db/rows.ts";
import { afterAttempt, type RetryPolicy } from "../domain/delivery.ts";
import { secretBinding } from "../usecases/subscriptions.ts";
import type { Mail } from "./mailer.ts";
import type { AttemptResult, WebhookAttempt } from "./webhook.ts";

export interface DeliveryWorkerOptions {
  db: SqlPool;
  logger: Logger;
  metrics: Metrics;
  secrets: Sealer;
  retry: RetryPolicy;
  sendWebhook: (a: WebhookAttempt) => Promise<AttemptResult>;
  sendMail?: ((m: Mail) => Promise<AttemptResult>) | undefined;
  concurrency: number;
  pollMs: number;
  /** How long a claimed delivery is left alone (longer than an attempt can take). */
  leaseMs: number;
}

export type DeliveryWorker = Worker & { wake(): void };

export function deliveryWorker(o: DeliveryWorkerOptions): DeliveryWorker {
  const outcomes = createCounter(
    o.metrics,
    "fop_deliveries_total",
    "Delivery attempts by kind (WEBHOOK, EMAIL) and outcome (delivered, retry, dead)",
    ["kind", "outcome"],
  );
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;

  async function attempt(d: DueDelivery): Promise<AttemptResult> {
    if (d.kind === "EMAIL") {
      if (!o.sendMail) return { error: "e-mail is not configured (SMTP_URL)" };
      const p = d.payload as { subject: string; text: string; html: string; language: string };
      return o.sendMail({ to: d.recipient, messageId: d.event_id, ...p });
    }
    if (!d.secret) return { error: "the subscription was deleted" };
    return o.sendWebhook({
      url: d.recipient,
      messageId: d.event_id,
      body: JSON.stringify(d.payload),
      secret: o.secrets.open(secretBinding(d.tenant_id, d.target_id), d.secret),
      headers: d.headers ?? [],
    });
  }

  async function run(d: DueDelivery): Promise<void> {
    let result: AttemptResult;
    try {
      result = await attempt(d);
    } catch (err) {
      result = { error: (err as Error).message };
    }
    const next = afterAttempt(o.retry, d.attempts, result.error);
    outcomes.inc({
      kind: d.kind,
      outcome: next.state === "DELIVERED" ? "delivered" : next.state === "DEAD" ? "dead" : "retry",
    });
    if (next.state !== "DELIVERED") {
      const log = next.state === "DEAD" ? o.logger.warn.bind(o.logger) : o.logger.debug.bind(o.logger);
      log(
        { delivery: d.id, kind: d.kind, event: d.event, attempt: d.attempts, error: next.error },
        next.state === "DEAD" ? "delivery dead-lettered" : "delivery failed; retrying",
      );
    }
    await settleDelivery(o.db, d.id, {
      state: next.state,
      status: result.status,
      ...(next.state === "PENDING" ? { delayMs: next.delayMs } : {}),
      ...(next.state !== "DELIVERED" ? { error: next.error } : {}),
    }).catch((err) => o.logger.error({ err, delivery: d.id }, "settling a delivery failed"));
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) {
        woken = false;
        return resolve();
      }
      const t = setTimeout(() => {
        wakeUp = undefined;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(t);
        wakeUp = undefined;
        resolve();
      };
    });

  async function main(): Promise<void> {
    while (running) {
      const free = o.concurrency - inFlight.size;
      let claimed: DueDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await claimDue(o.db, free, o.leaseMs);
        } catch (err) {
          o.logger.warn({ err: (err as Error).message }, "claiming deliveries failed");
        }
      }
      for (const d of claimed) {
        const p = run(d).finally(() => {
          inFlight.delete(p);
          wakeUp?.(); // a slot is free
        });
        inFlight.add(p);
      }
      if (claimed.length > 0 && claimed.length === free) continue;
      await sleep(o.pollMs);
    }
  }

  return {
    name: "notifications-delivery",
    async start() {
      running = true;
      loop = main();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
      await Promise.all(inFlight);
    },
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
  };
}
