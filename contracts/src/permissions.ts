/**
 * Permissions per operation follow the reference's `x-fft-permissions` where it names them; where it
 * names none (facilities, pick jobs, pick runs, transit time) we add our own, listed here. A route
 * requires all the permissions it lists. Tokens carry roles and/or permissions; roles expand by the
 * gateway's table (gateway/src/permissions.ts, README documents it).
 */
export const PERMISSIONS = [
  "ADMIN_MODULES_READ",
  "AUDIT_READ",
  "CARRIER_READ",
  "CARRIER_WRITE",
  "CATEGORY_READ",
  "CATEGORY_WRITE",
  "CONFIG_READ",
  "CONFIG_WRITE",
  "FACILITY_GROUP_READ",
  "FACILITY_GROUP_WRITE",
  "FACILITY_READ",
  "FACILITY_WRITE",
  "LOADUNIT_READ",
  "LOADUNIT_WRITE",
  "LOADUNITTYPE_READ",
  "LOADUNITTYPE_WRITE",
  "NOTIFICATION_CENTER_CONFIG_READ",
  "NOTIFICATION_CENTER_CONFIG_WRITE",
  "NOTIFICATION_READ",
  "PICKJOB_READ",
  "PICKJOB_WRITE",
  "PICKRUN_READ",
  "PICKRUN_WRITE",
  "RETURN_READ",
  "RETURN_WRITE",
  "STACKS_READ",
  "STACKS_WRITE",
  "SUBSCRIPTION_READ",
  "SUBSCRIPTION_WRITE",
] as const;
export type Permission = (typeof PERMISSIONS)[number];
