/**
 * A small in-process cache with a time to live and a size bound, for answers another service gave
 * that may be a little stale (e.g. "this facility exists"). Entries expire `ttlMs` after they were
 * set; past `max` entries the oldest set goes first. `ttlMs` 0 turns the cache off.
 */
export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  readonly size: number;
}

export function ttlCache<V>(opts: { ttlMs: number; max?: number; now?: () => number }): TtlCache<V> {
  const { ttlMs, max = 10_000, now = Date.now } = opts;
  // Map iteration order is insertion order: re-inserting on set keeps the oldest first.
  const entries = new Map<string, { value: V; expires: number }>();
  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.expires <= now()) {
        entries.delete(key);
        return undefined;
      }
      return e.value;
    },
    set(key, value) {
      if (ttlMs <= 0) return;
      entries.delete(key);
      entries.set(key, { value, expires: now() + ttlMs });
      while (entries.size > max) entries.delete(entries.keys().next().value as string);
    },
    delete(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
