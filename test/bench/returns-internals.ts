/**
 * The returns service's pure functions and row statements that the item return seed and baseline
 * use, so both write the same documents and rows as the service (not a copy of them).
 *
 * Carriers, picking and loadunits export theirs from their package's index for the bench;
 * `@fop/returns` exports only the service module so far, and services/ was not to be changed with
 * these scenarios, so this module reaches into its sources instead. When `@fop/returns` exports
 * these, import them from there and delete this file.
 */
export { insertJob, loadJob, updateJob } from "../../services/returns/src/db/rows.ts";
export {
  addItemReturn,
  type ItemReturn,
  patchReturnLine,
} from "../../services/returns/src/domain/itemreturn.ts";
export { createJob, type ItemReturnJob } from "../../services/returns/src/domain/job.ts";
