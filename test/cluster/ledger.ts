/**
 * What the chaos and soak runs hold the system to, read from its database and from the webhook
 * receiver once the event path is quiet: every acknowledged write is stored; every stored entity has
 * exactly one audit record of its creation (none lost, none doubled); every acknowledged pick job
 * reached its webhook subscriber at least once (webhook-id: the event id, deduplicable).
 */

import type { WebhookReceiver } from "@fop/kit/testing/webhook-receiver";
import pg from "pg";
import { eventually } from "../support/boot.ts";

export interface LedgerCounts {
  /** Acknowledged writes (201 answered). */
  acknowledged: number;
  /** Acknowledged writes not stored. */
  lostWrites: number;
  /** Stored entities without a creation audit record. */
  auditLost: number;
  /** Creation audit records beyond one per entity. */
  auditDoubled: number;
  /** Acknowledged pick jobs whose PICK_JOB_CREATED webhook never arrived. */
  webhooksLost: number;
  /** Webhook requests beyond one per event id (allowed: at least once). */
  webhookRedeliveries: number;
}

export interface LedgerInput {
  tenant: string;
  pickJobs: string[];
  categories: string[];
}

/** Pick job ids of the PICK_JOB_CREATED webhooks received on `path`, with how many times each event came. */
function webhookTally(hooks: WebhookReceiver, path: string) {
  const jobs = new Set<string>();
  const perEvent = new Map<string, number>();
  for (const r of hooks.on(path)) {
    const body = JSON.parse(r.body) as { event: string; payload: { id: string } };
    if (body.event !== "PICK_JOB_CREATED") continue;
    jobs.add(body.payload.id);
    const id = String(r.headers["webhook-id"]);
    perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
  }
  let redelivered = 0;
  for (const n of perEvent.values()) redelivered += n - 1;
  return { jobs, redelivered };
}

export class Ledger {
  private readonly db: pg.Pool;
  private readonly hooks: WebhookReceiver;
  private readonly hookPath: string;
  constructor(databaseUrl: string, hooks: WebhookReceiver, hookPath: string) {
    this.db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    this.db.on("error", () => {}); // a restarted Postgres: the pool reconnects
    this.hooks = hooks;
    this.hookPath = hookPath;
  }

  private async ids(sql: string, params: unknown[]): Promise<Set<string>> {
    const { rows } = await this.db.query<{ id: string }>(sql, params);
    return new Set(rows.map((r) => r.id));
  }

  /** Creation audit records per entity ref among `refs`. */
  private async audited(tenant: string, refs: string[], operation: string): Promise<Map<string, number>> {
    const { rows } = await this.db.query<{ ref: string; n: number }>(
      `select entity_ref as ref, count(*)::int as n from audit.audit_record
       where tenant_id = $1 and operation_name = $2 and entity_ref = any($3) group by 1`,
      [tenant, operation, refs],
    );
    return new Map(rows.map((r) => [r.ref, r.n]));
  }

  /** Counts for one set of acknowledged writes, as they stand now. */
  async count(input: LedgerInput): Promise<LedgerCounts> {
    const { tenant, pickJobs, categories } = input;
    const storedJobs = await this.ids(
      "select id::text as id from picking.pick_job where tenant_id = $1 and id = any($2::uuid[])",
      [tenant, pickJobs],
    );
    const storedCategories = await this.ids(
      "select id::text as id from catalog.category where tenant_id = $1 and id = any($2::uuid[])",
      [tenant, categories],
    );
    const jobAudits = await this.audited(tenant, [...storedJobs], "PICK_JOB_CREATED");
    const categoryAudits = await this.audited(tenant, [...storedCategories], "CATEGORY_CREATED");
    let auditLost = 0;
    let auditDoubled = 0;
    for (const [stored, audits] of [
      [storedJobs, jobAudits],
      [storedCategories, categoryAudits],
    ] as const) {
      for (const id of stored) {
        const n = audits.get(id) ?? 0;
        if (n === 0) auditLost++;
        else auditDoubled += n - 1;
      }
    }
    const hooks = webhookTally(this.hooks, this.hookPath);
    return {
      acknowledged: pickJobs.length + categories.length,
      lostWrites: pickJobs.length - storedJobs.size + categories.length - storedCategories.size,
      auditLost,
      auditDoubled,
      webhooksLost: pickJobs.filter((id) => storedJobs.has(id) && !hooks.jobs.has(id)).length,
      webhookRedeliveries: hooks.redelivered,
    };
  }

  /**
   * Counts once the event path has caught up: waits (up to `timeoutMs`) until nothing is lost,
   * and returns what stands then (lost counts above zero if it never caught up).
   */
  async settle(input: LedgerInput, timeoutMs = 60_000): Promise<LedgerCounts> {
    let last: LedgerCounts | undefined;
    await eventually(
      async () => {
        last = await this.count(input).catch(() => last);
        return last && last.auditLost === 0 && last.webhooksLost === 0 && last.lostWrites === 0;
      },
      timeoutMs,
      500,
    ).catch(() => {});
    return last ?? (await this.count(input));
  }

  close(): Promise<void> {
    return this.db.end();
  }
}
