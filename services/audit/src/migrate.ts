/** Applies the audit service's pending migrations with its own role (DATABASE_URL). */
import { migrateService } from "@fop/kit/service";
import { auditService } from "./service.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is missing");
  process.exit(2);
}
console.log(
  `audit migrations applied: ${(await migrateService(auditService, url)).join(", ") || "none pending"}`,
);
