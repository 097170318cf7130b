/** audit-records: every event of the stream becomes one audit record. */
import { type ConsumerDeps, eventConsumer } from "@fop/kit/events/consumer";
import { recordEvent } from "../usecases/audits.ts";
import type { AuditDeps } from "../usecases/deps.ts";

export const AUDIT_CONSUMER = "audit-records";

export const auditRecordsConsumer = (deps: AuditDeps, runtime: ConsumerDeps) =>
  eventConsumer(runtime, {
    name: AUDIT_CONSUMER,
    handle: (em, event) => recordEvent(deps, em, event),
    concurrency: 16,
  });
