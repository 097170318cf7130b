/**
 * Roles and a token's effective permissions. The permissions themselves (PERMISSIONS) are the
 * contracts' (contracts/src/permissions.ts).
 */
import { PERMISSIONS, type Permission } from "@fop/contracts/permissions";
import { AppError } from "@fop/kit/errors";

const reads = PERMISSIONS.filter((p) => p.endsWith("_READ"));

/** Role -> permissions. ADMIN holds every permission. */
export const ROLE_PERMISSIONS = {
  ADMIN: PERMISSIONS,
  /** Sees everything, changes nothing. */
  VIEWER: reads,
  /** Runs picking and packing on the floor. */
  PICKER: [
    "PICKJOB_READ",
    "PICKJOB_WRITE",
    "PICKRUN_READ",
    "PICKRUN_WRITE",
    "LOADUNIT_READ",
    "LOADUNIT_WRITE",
    "STACKS_READ",
    "STACKS_WRITE",
    "FACILITY_READ",
    "CATEGORY_READ",
  ],
  /** Maintains the master data: categories, facilities, groups, carriers. */
  MASTER_DATA_MANAGER: [
    "ADMIN_MODULES_READ",
    "CATEGORY_READ",
    "CATEGORY_WRITE",
    "FACILITY_READ",
    "FACILITY_WRITE",
    "FACILITY_GROUP_READ",
    "FACILITY_GROUP_WRITE",
    "CARRIER_READ",
    "CARRIER_WRITE",
    "CONFIG_READ",
    "CONFIG_WRITE",
  ],
  /** Handles returns. */
  RETURNS_CLERK: ["RETURN_READ", "RETURN_WRITE", "FACILITY_READ", "CATEGORY_READ"],
  /** Reads the audit log. */
  AUDITOR: ["AUDIT_READ"],
} as const satisfies Record<string, readonly Permission[]>;

/** Role lookups go through a Map: a role named like an Object property ("constructor") is unknown. */
const ROLES = new Map<string, readonly Permission[]>(Object.entries(ROLE_PERMISSIONS));

/**
 * The effective permissions of a token: its explicit permissions plus those of its roles. Unknown
 * roles grant nothing.
 */
export function effectivePermissions(roles: readonly string[], permissions: readonly string[]): string[] {
  const out = new Set(permissions);
  for (const role of roles) for (const p of ROLES.get(role) ?? []) out.add(p);
  return [...out].sort();
}

/** The 403 of a caller without `missing` (REST answers it; GraphQL puts it on the field). */
export const permissionDenied = (missing: readonly string[]) =>
  new AppError("forbidden", {
    code: "PERMISSION_DENIED",
    description: `This operation needs the permission(s) ${missing.join(", ")}.`,
  });
