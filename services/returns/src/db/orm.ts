import { kitEventMigrations } from "@fop/kit/events/migrations";
import type { MigrationObject } from "@mikro-orm/postgresql";
import { M0001Initial } from "./migrations/m0001-initial.ts";
import { M0002ItemReturnJobs } from "./migrations/m0002-item-return-jobs.ts";
import { M0003RefundTrigger } from "./migrations/m0003-refund-trigger.ts";
import { M0004ReturnConfiguration } from "./migrations/m0004-return-configuration.ts";
import { M0005Parcels } from "./migrations/m0005-parcels.ts";
import { M0006ReasonTextHash } from "./migrations/m0006-reason-text-hash.ts";
import { M0007HandoverConfiguration } from "./migrations/m0007-handover-configuration.ts";

/** The schema (and database role prefix) the returns service owns. */
export const SCHEMA = "returns";

/** Applied in order; never edit a released migration, add a new one. */
export const migrations: MigrationObject[] = [
  ...kitEventMigrations,
  { name: "m0001-initial", class: M0001Initial },
  { name: "m0002-item-return-jobs", class: M0002ItemReturnJobs },
  { name: "m0003-refund-trigger", class: M0003RefundTrigger },
  { name: "m0004-return-configuration", class: M0004ReturnConfiguration },
  { name: "m0005-parcels", class: M0005Parcels },
  { name: "m0006-reason-text-hash", class: M0006ReasonTextHash },
  { name: "m0007-handover-configuration", class: M0007HandoverConfiguration },
];
