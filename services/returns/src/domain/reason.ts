/**
 * Reasons (the reference's AbstractReason): cancelation reasons and reroute descriptions. A reason's
 * text (`reason`) identifies it within its kind: creating one whose text exists answers the existing
 * one. Pure functions; no I/O.
 */
import { invalid } from "@fop/kit/errors";
import { checkLocaleString, requireCurrentVersion } from "@fop/kit/validation";
import type { ChangeContext, JsonObject, Reason, ReasonAction } from "./types.ts";

/** Longest `reason` text kept (the reference sets none; it is an identifying text, not prose). */
export const MAX_REASON_LENGTH = 1024;

const FIELDS = new Set(["reason", "reasonLocalized"]);

/** `reason` and `reasonLocalized`, both required; nothing else (the reference closes both inputs). */
function checkInput(
  input: JsonObject,
  allowed: Set<string>,
): { reason: string; reasonLocalized: Record<string, string> } {
  for (const key of Object.keys(input)) {
    if (!allowed.has(key)) throw invalid("UNKNOWN_FIELD", `${key} is not a field of a reason.`, `/${key}`);
  }
  const { reason, reasonLocalized } = input;
  if (typeof reason !== "string" || reason.trim() === "" || [...reason].length > MAX_REASON_LENGTH) {
    throw invalid(
      "REASON_REQUIRED",
      `reason must be a text of 1 to ${MAX_REASON_LENGTH} characters.`,
      "/reason",
    );
  }
  if (typeof reasonLocalized !== "object" || reasonLocalized === null || Array.isArray(reasonLocalized)) {
    throw invalid(
      "REASON_LOCALIZED_REQUIRED",
      "reasonLocalized must be an object of locale -> text.",
      "/reasonLocalized",
    );
  }
  checkLocaleString(reasonLocalized as Record<string, string>, "/reasonLocalized");
  return { reason, reasonLocalized: reasonLocalized as Record<string, string> };
}

/** POST: a new reason of `action`, version 1. */
export function createReason(action: ReasonAction, input: JsonObject, c: ChangeContext): Reason {
  const fields = checkInput(input, FIELDS);
  const at = c.now.toISOString();
  return { id: c.newId(), version: 1, created: at, lastModified: at, action, ...fields };
}

/** PUT: `reason` and `reasonLocalized` replaced on the version the body names. */
export function modifyReason(current: Reason, input: JsonObject, c: ChangeContext): Reason {
  requireCurrentVersion("reason", current, input.version);
  const fields = checkInput(input, new Set([...FIELDS, "version"]));
  return { ...current, ...fields, version: current.version + 1, lastModified: c.now.toISOString() };
}
