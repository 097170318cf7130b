/** Applies the returns service's pending migrations with its own role (DATABASE_URL); used by deployment jobs. */
import { migrateService } from "@fop/kit/service";
import { returnsService } from "./service.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is missing");
  process.exit(2);
}
console.log(
  `returns migrations applied: ${(await migrateService(returnsService, url)).join(", ") || "none pending"}`,
);
