// The benchmark baseline (test/bench) builds the same document and derived columns as the service,
// without the service around it: the pure functions, not a copy of them.

export { newShortId } from "@fop/kit/ids";
export { jobColumns } from "./db/rows.ts";
export { TARGET_TIME_KEY } from "./db/sort-keys.ts";
export { applyPickJobAction } from "./domain/lifecycle.ts";
export { createPickJob } from "./domain/pickjob.ts";
export { pickingService } from "./service.ts";
