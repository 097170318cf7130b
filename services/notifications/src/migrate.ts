/** Applies the notifications service's pending migrations with its own role (DATABASE_URL); used by deployment jobs. */
import { migrateService } from "@fop/kit/service";
import { notificationsService } from "./service.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is missing");
  process.exit(2);
}
console.log(
  `notifications migrations applied: ${(await migrateService(notificationsService, url)).join(", ") || "none pending"}`,
);
