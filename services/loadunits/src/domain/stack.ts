/** Stacks: load units stacked on each other, linked to facilities and processes. */
import type { ChangeContext, JsonObject, Stack } from "./types.ts";

const refs = (v: unknown): string[] =>
  Array.isArray(v) ? [...new Set(v.filter((x): x is string => typeof x === "string"))] : [];

/**
 * The facilityRefs as the request lists them (duplicates kept, so a check names the entry the
 * client sent, `/facilityRefs/2`); anything but a list is none.
 */
export const requestedFacilityRefs = (body: JsonObject): string[] =>
  Array.isArray(body.facilityRefs) ? body.facilityRefs.map((r) => (typeof r === "string" ? r : "")) : [];

/** A new stack from a StackForCreation body (each reference once). */
export function createStack(id: string, body: JsonObject, c: Pick<ChangeContext, "now">): Stack {
  const at = c.now.toISOString();
  return {
    id,
    version: 1,
    created: at,
    lastModified: at,
    facilityRefs: refs(body.facilityRefs),
    processRefs: refs(body.processRefs),
  };
}
