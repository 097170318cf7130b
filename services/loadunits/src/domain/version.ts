import { invalid, versionConflict } from "@fop/kit/errors";

/** The request must name the entity's current version (409 otherwise). */
export function checkVersion(entity: string, doc: { version: number }, version: unknown): void {
  if (typeof version !== "number" || !Number.isInteger(version)) {
    throw invalid("VERSION_REQUIRED", `version must be the ${entity}'s current version.`, "/version");
  }
  if (version !== doc.version) throw versionConflict(entity, version, doc.version);
}
