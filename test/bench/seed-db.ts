/** What the SQL seeds share: one connection to a target's own database for the length of `fn`. */
import pg from "pg";
import type { Target } from "./requests.ts";

/** Runs `fn` on a connection to `target`'s database as its admin, closing it whatever `fn` does. */
export async function withDatabase<T>(target: Target, fn: (db: pg.Client) => Promise<T>): Promise<T> {
  if (!target.databaseUrl) throw new Error(`${target.name}: no database URL to seed through`);
  const db = new pg.Client({ connectionString: target.databaseUrl });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}

/**
 * `seed` once per target database, for data several scenarios share: later calls (whatever their
 * other arguments) get the first call's result.
 */
export function oncePerDatabase<A extends unknown[], T>(
  seed: (target: Target, ...args: A) => Promise<T>,
): (target: Target, ...args: A) => Promise<T> {
  const seeded = new Map<string, Promise<T>>();
  return (target, ...args) => {
    const url = target.databaseUrl;
    if (!url) throw new Error(`${target.name}: no database URL to seed into`);
    let s = seeded.get(url);
    if (!s) {
      s = seed(target, ...args);
      seeded.set(url, s);
    }
    return s;
  };
}
