import { kitEventMigrations } from "@fop/kit/events/migrations";
import type { MigrationObject } from "@mikro-orm/postgresql";
import { PickJobSchema, PickRunSchema } from "./entities.ts";
import { M0001Initial } from "./migrations/m0001-initial.ts";

/** The schema (and database role prefix) the picking service owns. */
export const SCHEMA = "picking";

export const entities = [PickJobSchema, PickRunSchema];

/** Applied in order; never edit a released migration, add a new one. */
export const migrations: MigrationObject[] = [
  ...kitEventMigrations,
  { name: "m0001-initial", class: M0001Initial },
];
