// The benchmark (test/bench) seeds and its baseline writes the same facilities and groups as the
// service: the pure functions and statements, not a copy of them.
export { insertFacility } from "./db/facility.rows.ts";
export {
  findFacilityGroup,
  groupCounts,
  insertFacilityGroup,
  lockFacilities,
  updateFacilityGroup,
} from "./db/facility-group.rows.ts";
export { createFacility } from "./domain/facility.ts";
export {
  applyGroupAction,
  checkGroupsPerFacility,
  createFacilityGroup,
  DEFAULT_GROUP_LIMITS,
  type FacilityGroup,
  type GroupAction,
} from "./domain/facility-group.ts";
export { facilityGroupJson } from "./rpc/facility-group.mapper.ts";
export { catalogService } from "./service.ts";
