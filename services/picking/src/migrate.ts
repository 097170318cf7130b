/** Applies the picking service's pending migrations with its own role (DATABASE_URL); used by deployment jobs. */
import { migrateService } from "@fop/kit/service";
import { pickingService } from "./service.ts";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("migrate: DATABASE_URL is missing");
  process.exit(2);
}
console.log(
  `picking migrations applied: ${(await migrateService(pickingService, url)).join(", ") || "none pending"}`,
);
