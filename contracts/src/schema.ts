/**
 * TypeBox building blocks of the contracts' schemas (the gateway's request schemas use them too).
 */
import { type ArrayOptions, type TObject, type TProperties, type TSchema, Type } from "@sinclair/typebox";

type EnumOpts = { title?: string; description?: string; default?: string; deprecated?: boolean };

/** A string enum as the reference writes it (`type: string, enum: [...]`): one `enum` error naming the values. */
export const StringEnum = <const T extends string>(values: readonly T[], opts: EnumOpts = {}) =>
  Type.Unsafe<T>({ type: "string", enum: [...values], ...opts });

/** One of `values` as `anyOf` of constants (how the facility and container type schemas write theirs). */
export const LiteralUnion = <const T extends string>(values: readonly T[], title?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    title ? { title } : {},
  );

/**
 * The schema keyword that marks an array filter the REST query may spell comma-joined
 * (`status=OPEN,PAUSED`, the reference's `explode: false`) as well as repeated (the platform's SDK
 * sends `status=OPEN&status=PAUSED`), or both mixed. An OpenAPI extension: documents show it.
 */
export const COMMA_SEPARATED = "x-comma-separated";

/** An optional array filter REST spells comma-joined or repeated; `maxItems` counts the values. */
export const CommaList = <T extends TSchema>(items: T, options: ArrayOptions & { maxItems: number }) =>
  Type.Optional(
    Type.Array(items, {
      ...options,
      description: `${options.description ?? "Values"} (comma-separated, or the parameter repeated; at most ${options.maxItems})`,
      [COMMA_SEPARATED]: true,
    }),
  );

/**
 * Each list endpoint's filters, declared once (GET /api/pickjobs, /api/itemreturnjobs, ...): a
 * closed object of optional parameters, array filters as arrays. The gateway derives the REST
 * querystring (with the page parameters) and the GraphQL arguments from it and sends the values as
 * the list RPC's `filters`; the service reads them with the same declaration (validated: a direct
 * RPC caller meets the REST rules) and its use case takes `Static<typeof Declaration>`. Adding a
 * filter: its line in the declaration, its SQL, its test.
 */
export const ListFilters = <P extends TProperties>(title: string, properties: P): TObject<P> =>
  Type.Object(properties, { title, additionalProperties: false });
