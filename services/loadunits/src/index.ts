// The benchmark baseline (test/bench) builds the same load unit documents and rows as the service,
// without the service around it: the pure functions and statements, not a copy of them.
export { insertLoadUnitsStatement } from "./db/rows.ts";
export { createLoadUnit } from "./domain/loadunit.ts";
export { loadUnitsService } from "./service.ts";
