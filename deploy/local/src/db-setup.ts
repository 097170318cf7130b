/**
 * Database setup with an admin connection (DATABASE_URL): each service's role and schema, then each
 * service's migrations run with its own role. The launcher calls it; in Kubernetes it is the
 * `db-setup` Job (deploy/k8s) that runs before the services roll out.
 */
import { ensureServiceSchema } from "@fop/kit/db/admin";
import { serviceDatabaseUrl } from "@fop/kit/db/orm";
import { migrateService } from "@fop/kit/service";
import { SERVICES } from "./services.ts";

/** Applies schemas and migrations; `serviceUrl` maps a service to the URL its role connects with. */
export async function setupDatabase(
  adminUrl: string,
  log: (msg: string) => void = console.log,
  serviceUrl: (schema: string) => string = (schema) => serviceDatabaseUrl(adminUrl, schema),
): Promise<void> {
  for (const { module } of SERVICES) {
    await ensureServiceSchema(adminUrl, module.schema);
    const applied = await migrateService(module, serviceUrl(module.schema));
    log(
      `${module.name}: schema "${module.schema}" ready${applied.length ? `, applied ${applied.join(", ")}` : ", up to date"}`,
    );
  }
}

if (import.meta.main) {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    console.error("db-setup: DATABASE_URL (an admin connection to the platform's database) is missing");
    process.exit(2);
  }
  // Where the service roles have passwords, <SCHEMA>_DATABASE_URL (e.g. CATALOG_DATABASE_URL) gives
  // each role's own URL for its migrations; otherwise the admin URL with the role's name is used.
  await setupDatabase(
    adminUrl,
    console.log,
    (schema) => process.env[`${schema.toUpperCase()}_DATABASE_URL`] ?? serviceDatabaseUrl(adminUrl, schema),
  );
}
