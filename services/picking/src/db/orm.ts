import { kitEventMigrations } from "@fop/kit/events/migrations";
import type { MigrationObject } from "@mikro-orm/postgresql";
import { M0001Initial } from "./migrations/m0001-initial.ts";
import { M0002LastUserModification } from "./migrations/m0002-last-user-modification.ts";
import { M0003PickingConfiguration } from "./migrations/m0003-picking-configuration.ts";

/** The schema (and database role prefix) the picking service owns. */
export const SCHEMA = "picking";

/** Applied in order; never edit a released migration, add a new one. */
export const migrations: MigrationObject[] = [
  ...kitEventMigrations,
  { name: "m0001-initial", class: M0001Initial },
  { name: "m0002-last-user-modification", class: M0002LastUserModification },
  { name: "m0003-picking-configuration", class: M0003PickingConfiguration },
];
