/** What a resource contributes to the GraphQL schema (see schema.ts; one module per owning service). */
import type { IResolvers } from "mercurius";
import type { GqlContext } from "./context.ts";
import type { TypeRegistry } from "./sdl.ts";

export interface RootFields {
  /** Lines of `type Query` (with their descriptions). */
  query?: string[];
  /** Lines of `type Mutation`. */
  mutation?: string[];
}

export interface GraphModule {
  /** Registers the module's types (and relationship fields) and answers its root fields. */
  define(t: TypeRegistry): RootFields;
  resolvers: IResolvers<Args, GqlContext>;
}

// biome-ignore lint/suspicious/noExplicitAny: parents and arguments are typed by the schema, not TS.
export type Args = any;
