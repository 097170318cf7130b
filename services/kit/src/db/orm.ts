/**
 * MikroORM bootstrap for one service: its own database role, its own schema, its migrations bundled
 * as a list (so they run the same from src under tsx/vitest/Node and from dist).
 */

import { Migrator } from "@mikro-orm/migrations";
import { type EntitySchema, type MigrationObject, MikroORM, type Options } from "@mikro-orm/postgresql";

export interface OrmOptions {
  /** Connection URL of the service's own role (see {@link serviceDatabaseUrl}). */
  clientUrl: string;
  /** The schema the service owns, e.g. "catalog". */
  schema: string;
  // biome-ignore lint/suspicious/noExplicitAny: entity schemas of any shape
  entities: EntitySchema<any, any>[];
  migrations: MigrationObject[];
  /** Pool size (default 10). */
  poolMax?: number;
  debug?: boolean;
}

export type Orm = MikroORM;

export async function initOrm(opts: OrmOptions): Promise<Orm> {
  const config: Options = {
    clientUrl: opts.clientUrl,
    schema: opts.schema,
    entities: opts.entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: opts.migrations,
      tableName: "mikro_orm_migrations",
      schema: opts.schema,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    forceUtcTimezone: true,
    ensureDatabase: false,
    allowGlobalContext: false,
    debug: opts.debug ?? false,
    discovery: { warnWhenNoEntities: false },
  };
  return MikroORM.init(config);
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

/** The role a service connects as: `<service>_svc`. */
export const serviceRole = (service: string) => `${service}_svc`;

/** `adminUrl` with the user replaced by the service's role (no password: trust/peer or a secret URL in production). */
export function serviceDatabaseUrl(adminUrl: string, service: string): string {
  const u = new URL(adminUrl);
  u.username = serviceRole(service);
  u.password = "";
  return u.toString();
}
