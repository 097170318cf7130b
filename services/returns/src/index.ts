export { insertJob, loadJob, updateJob } from "./db/rows.ts";
// The benchmark (test/bench) seeds and its baseline writes the same documents and rows as the
// service: the pure functions and statements, not a copy of them.
export { addItemReturn, type ItemReturn, patchReturnLine } from "./domain/itemreturn.ts";
export { createJob, type ItemReturnJob } from "./domain/job.ts";
export { returnsService } from "./service.ts";
