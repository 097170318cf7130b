/**
 * Batch reads: one call for many parents (GraphQL resolves relationships with them). Every batch
 * RPC takes its ids through {@link batchIds}: at most {@link BATCH_MAX_IDS}, malformed ids dropped
 * (they name nothing), each id once; an empty result means "answer empty, ask no database".
 */
import { invalid } from "./errors.ts";
import { isUuid } from "./ids.ts";

export const BATCH_MAX_IDS = 500;

/**
 * The distinct well-formed ids (lower case, first occurrence order) of a batch request; more than
 * {@link BATCH_MAX_IDS} ids (counted as sent) is a 400 naming `field`.
 */
export function batchIds(ids: readonly string[], field = "ids"): string[] {
  if (ids.length > BATCH_MAX_IDS) {
    throw invalid("TOO_MANY_IDS", `At most ${BATCH_MAX_IDS} ids per call.`, field);
  }
  return [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
}
