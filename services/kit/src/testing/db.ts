/** A throw-away database per test file, with the roles and schemas the services need. */
import { randomBytes } from "node:crypto";
import { ensureServiceSchema, ident, withClient } from "../db/admin.ts";
import { serviceDatabaseUrl } from "../db/orm.ts";
import type { ServiceModule } from "../service.ts";
import { migrateService } from "../service.ts";

/** Creates a fresh database (tests: one per test file) and returns its URL. */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  await withClient(adminUrl, (c) => c.query(`create database ${ident(name)}`));
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops a database created by {@link createDatabase}, disconnecting its sessions. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withClient(adminUrl, (c) => c.query(`drop database if exists ${ident(name)} with (force)`));
}

export interface TestDatabase {
  /** Admin URL of the new database. */
  url: string;
  /** URL of `service`'s own role in it. */
  serviceUrl(service: string): string;
  drop(): Promise<void>;
}

export async function createTestDatabase(
  adminUrl: string,
  services: ServiceModule<unknown>[] = [],
): Promise<TestDatabase> {
  const name = `fop_t_${randomBytes(6).toString("hex")}`;
  const url = await createDatabase(adminUrl, name);
  for (const s of services) {
    await ensureServiceSchema(url, s.schema);
    await migrateService(s, serviceDatabaseUrl(url, s.schema));
  }
  return {
    url,
    serviceUrl: (service) => serviceDatabaseUrl(url, service),
    drop: () => dropDatabase(adminUrl, name),
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the test Postgres database (roles, schemas and test databases are made with it). */
    adminUrl: string;
    /** NATS with JetStream. */
    natsUrl: string;
  }
}
