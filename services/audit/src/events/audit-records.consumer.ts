/** audit-records: every event of the stream becomes one audit record. */
import { type ConsumerDeps, eventConsumer } from "@fop/kit/events/consumer";
import { recordEvents } from "../usecases/audits.ts";
import type { AuditDeps } from "../usecases/deps.ts";

export const AUDIT_CONSUMER = "audit-records";

export const auditRecordsConsumer = (deps: AuditDeps, runtime: ConsumerDeps) =>
  eventConsumer(runtime, {
    name: AUDIT_CONSUMER,
    handleBatch: (em, events) => recordEvents(deps, em, events),
    batchSize: 64,
    concurrency: 4,
  });
