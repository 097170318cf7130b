/**
 * One unit of work = one transaction on a fresh entity manager. Database errors that mean something
 * to a caller (a taken unique identifier, a lost optimistic-lock race) become AppErrors here, in one
 * place.
 */
import { OptimisticLockError, UniqueConstraintViolationException } from "@mikro-orm/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { checkDeadline, DEADLINE_SQLSTATE, deadlineExceeded } from "../deadline.ts";
import { AppError, isAppError } from "../errors.ts";
import type { Orm } from "./orm.ts";

/** Maps a unique index name to the error its violation means (e.g. a taken tenant identifier). */
export type UniqueViolations = Readonly<Record<string, () => AppError>>;

/** SQLSTATEs that mean the request carried a value Postgres cannot store or compare: the caller's 400. */
const BAD_VALUE_STATES = new Set(["22P05", "22021", "22P02", "22003", "22007", "22008", "2201B", "54000"]);

export function translateDbError(err: unknown, unique: UniqueViolations = {}): unknown {
  if (isAppError(err)) return err;
  const state = (err as { code?: string }).code;
  if (state === DEADLINE_SQLSTATE) return deadlineExceeded();
  if (state && BAD_VALUE_STATES.has(state)) {
    return new AppError("invalid", {
      code: "INVALID_VALUE",
      summary: "Invalid input.",
      description: "A value in the request cannot be stored or compared.",
    });
  }
  if (err instanceof OptimisticLockError) {
    return new AppError("version_conflict", {
      code: "VERSION_CONFLICT",
      description: "The entity was changed by another request at the same time; read it again and retry.",
    });
  }
  // The ORM's exception, or Postgres' own unique_violation from a plain SQL statement.
  if (err instanceof UniqueConstraintViolationException || state === "23505") {
    const constraint = (err as { constraint?: string }).constraint ?? "";
    const known = unique[constraint];
    if (known) return known();
    return new AppError("conflict", {
      code: "DUPLICATE",
      description: "An entity with the same identifier exists.",
    });
  }
  return err;
}

/**
 * Runs `fn` in a transaction on a fresh fork of the ORM's entity manager. Inside an RPC the call's
 * deadline is checked before the transaction begins and again before it commits (deadline.ts): past
 * it, nothing is written and the caller gets `DEADLINE_EXCEEDED` (a retry is safe).
 */
export async function inTransaction<T>(
  orm: Orm,
  fn: (em: EntityManager) => Promise<T>,
  unique: UniqueViolations = {},
): Promise<T> {
  try {
    checkDeadline();
    return await (orm.em.fork() as EntityManager).transactional(async (em) => {
      const result = await fn(em);
      checkDeadline(); // throwing here rolls the transaction back
      return result;
    });
  } catch (err) {
    throw translateDbError(err, unique);
  }
}

/** A fresh entity manager for reads outside a transaction. */
export const readEm = (orm: Orm): EntityManager => orm.em.fork() as EntityManager;
