import { kitEventMigrations } from "@fop/kit/events/migrations";
import type { MigrationObject } from "@mikro-orm/postgresql";
import { M0001Initial } from "./migrations/m0001-initial.ts";

/** The schema (and database role prefix) the notifications service owns. */
export const SCHEMA = "notifications";

/** Applied in order; never edit a released migration, add a new one. */
export const migrations: MigrationObject[] = [
  ...kitEventMigrations,
  { name: "m0001-initial", class: M0001Initial },
];
