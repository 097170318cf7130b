/** The audit service as the kit runs it: RPC reads, the audit-records consumer, the retention sweep. */
import { SERVICE_PORTS } from "@fop/contracts/service-ports";
import { env } from "@fop/kit/config";
import type { ServiceModule } from "@fop/kit/service";
import { periodic } from "@fop/kit/worker";
import { migrations, SCHEMA } from "./db/orm.ts";
import { auditRecordsConsumer } from "./events/audit-records.consumer.ts";
import { auditRoutes } from "./rpc/routes.ts";
import { sweepRetention } from "./usecases/audits.ts";
import type { AuditDeps } from "./usecases/deps.ts";

const DAY = 86_400_000;

const config = {
  AUDIT_RETENTION_DAYS: env.int("records are deleted this many days after they were written", 365, 1),
  AUDIT_ANONYMIZE_AFTER_DAYS: env.int("usernames and client info are anonymized after this many days", 30, 0),
  AUDIT_SWEEP_INTERVAL_MS: env.int("how often the retention sweep runs", 10 * 60_000, 100),
};

export const auditService: ServiceModule<AuditDeps, typeof config> = {
  name: "audit",
  ports: SERVICE_PORTS.audit,
  schema: SCHEMA,
  migrations,
  config,
  createDeps: (base, cfg) => ({
    db: base.db,
    policy: {
      retentionMs: cfg.AUDIT_RETENTION_DAYS * DAY,
      anonymizeAfterMs: cfg.AUDIT_ANONYMIZE_AFTER_DAYS * DAY,
    },
    cursors: base.cursors,
    now: base.now,
    newId: base.newId,
  }),
  routes: auditRoutes,
  workers: (deps, base, cfg) => [
    auditRecordsConsumer(deps, base),
    periodic("audit-retention", cfg.AUDIT_SWEEP_INTERVAL_MS, base.logger, async () => {
      const swept = await sweepRetention(deps);
      if (swept.deleted || swept.anonymized) base.logger.info(swept, "audit retention sweep");
    }),
  ],
};
