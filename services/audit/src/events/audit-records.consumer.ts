/** audit-records: every event of the stream becomes one audit record, a batch per statement. */
import { type ConsumerDeps, eventConsumer } from "@fop/kit/events/consumer";
import { checkEvent, recordEventsStatement } from "../usecases/audits.ts";
import type { AuditDeps } from "../usecases/deps.ts";

export const AUDIT_CONSUMER = "audit-records";

export const auditRecordsConsumer = (deps: AuditDeps, runtime: ConsumerDeps) =>
  eventConsumer(runtime, {
    name: AUDIT_CONSUMER,
    batch: {
      check: checkEvent,
      statement: (events) => recordEventsStatement(deps, events),
      // Idempotent by audit_record's unique (tenant_id, event_id): see recordEventsStatement.
      size: 64,
    },
    concurrency: 4,
  });
