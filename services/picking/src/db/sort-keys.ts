/**
 * Sort keys shared by the migration (index expressions) and the queries: an index is only used when
 * the query's expression is the same text. A job without targetTime sorts after every job with one.
 */
export const NO_TARGET_TIME = "'9999-12-31T23:59:59.999Z'::timestamptz";
export const TARGET_TIME_KEY = `coalesce(t.target_time, ${NO_TARGET_TIME})`;
