/** The notifications service's read models, shaped as the reference schemas. */
import type { Json, JsonObject } from "@fop/kit/json";

export type { Json, JsonObject };

/** What a change needs from outside: the clock and new ids. */
export interface ChangeContext {
  now: Date;
  newId: () => string;
}
