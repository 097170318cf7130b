/** The returns service's read models, shaped as the reference schemas. */
import { invalid } from "@fop/kit/errors";

import type { Json, JsonObject } from "@fop/kit/json";

export type { Json, JsonObject };

/** The action a reason can be attached to; each names one REST resource. */
export const REASON_ACTIONS = ["CANCELATION", "REROUTE"] as const;
export type ReasonAction = (typeof REASON_ACTIONS)[number];

/** A cancelation reason or reroute description (reference AbstractReason). */
export interface Reason {
  id: string;
  version: number;
  created: string;
  lastModified: string;
  action: ReasonAction;
  reason: string;
  reasonLocalized: Record<string, string>;
}

/** What a change needs from outside: the clock and new ids. */
export interface ChangeContext {
  now: Date;
  newId: () => string;
}

/**
 * The text of the first locale of a localized map (a configuration's resolved `reason`,
 * `condition`, `refusedReason`); 400 LOCALIZED_TEXT_REQUIRED naming `field` when it has none.
 */
export function firstText(localized: unknown, field: string): string {
  const map = localized as Record<string, string> | undefined;
  const text = map && typeof map === "object" ? Object.values(map)[0] : undefined;
  if (typeof text !== "string")
    throw invalid("LOCALIZED_TEXT_REQUIRED", `${field.slice(1)} needs at least one locale.`, field);
  return text;
}
