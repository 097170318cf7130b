/** The notifications service's read models, shaped as the reference schemas. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What a change needs from outside: the clock and new ids. */
export interface ChangeContext {
  now: Date;
  newId: () => string;
}
