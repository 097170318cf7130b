import { Migration } from "@mikro-orm/migrations";

/**
 * When REFUND_TRIGGERED was recorded for a job (once: the update that sets it from null is the one
 * that records the event, under the job's row lock). Not part of the document clients read.
 */
export class M0003RefundTrigger extends Migration {
  override name = "m0003-refund-trigger";

  override up(): void {
    this.addSql("alter table item_return_job add column refund_triggered_at timestamptz(3) null");
  }
}
