/** The returns service's read models, shaped as the reference schemas. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

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
