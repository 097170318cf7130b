export { AUDIT_CONSUMER } from "./events/audit-records.consumer.ts";
export { auditService } from "./service.ts";
