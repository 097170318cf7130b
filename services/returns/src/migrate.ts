/** Applies the returns service's pending migrations with its own role (DATABASE_URL): `node --conditions=source src/migrate.ts`. */
import { runMigrate } from "@fop/kit/service";
import { returnsService } from "./service.ts";

await runMigrate(returnsService);
