/**
 * Parameterised SQL through the ORM's own pool (and its transaction, when the entity manager is in
 * one). MikroORM's `execute` inlines parameters into the SQL text; this sends them as real bind
 * parameters ($1, $2, ...) instead.
 */
import type { EntityManager } from "@mikro-orm/postgresql";
import { CompiledQuery, type Kysely } from "kysely";

export interface Sql {
  text: string;
  params: unknown[];
}

export async function query<R = Record<string, unknown>>(em: EntityManager, sql: Sql): Promise<R[]> {
  // biome-ignore lint/suspicious/noExplicitAny: the ORM's kysely client is untyped here
  const runner = (em.getTransactionContext<Kysely<any>>() ?? em.getConnection().getClient()) as Kysely<any>;
  const res = await runner.executeQuery<R>(CompiledQuery.raw(sql.text, sql.params));
  return res.rows as R[];
}
