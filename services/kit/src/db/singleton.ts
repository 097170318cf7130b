/**
 * A per-tenant singleton that PUT creates or replaces (a transit time or return configuration):
 * the first write creates it (there is nothing to be stale against); later ones replace it on the
 * version they name (the caller's `apply` checks it). Call inside the use case's transaction. Of
 * two concurrent first writes, one inserts and the other, having waited on that insert, becomes a
 * versioned update of it (so it is a 409 unless it named the new version).
 */
export async function upsertSingleton<T>(
  ops: {
    /** The current value, locked (undefined: none yet). */
    load(): Promise<T | undefined>;
    /** Inserts unless one exists; true when this call inserted. */
    insertIfAbsent(value: T): Promise<boolean>;
    update(value: T): Promise<void>;
  },
  apply: (current: T | undefined) => T,
): Promise<{ value: T; created: boolean }> {
  let current = await ops.load();
  if (!current) {
    const value = apply(undefined);
    if (await ops.insertIfAbsent(value)) return { value, created: true };
    current = await ops.load();
  }
  const value = apply(current);
  await ops.update(value);
  return { value, created: false };
}
