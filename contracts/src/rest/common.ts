/**
 * JSON schemas shared by routes, written to match the platform's public API description (the
 * reference): error body, paging, search payloads and the filter operator sets. Validation and the
 * OpenAPI document both come from these.
 */

import { invalid } from "@fop/kit/errors";
import type { Json, JsonObject } from "@fop/kit/json";
import { LIST_PAGE, type PageLimits, SEARCH_PAGE } from "@fop/kit/paging";
import {
  type Static,
  type TObject,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from "@sinclair/typebox";
import { COMMA_SEPARATED } from "../schema.ts";

export { StringEnum } from "../schema.ts";

/** The platform's error body: an array of {summary, description, requestVersion, version} + our `code`. */
export const ErrorInner = Type.Object(
  {
    summary: Type.String({ examples: ["One or more mandatory attributes were not provided."] }),
    description: Type.Optional(Type.String()),
    requestVersion: Type.Optional(Type.Integer({ description: "The version the request named." })),
    version: Type.Optional(Type.Integer({ description: "The entity's current version." })),
    code: Type.Optional(Type.String({ description: "Stable machine-readable error code (our addition)." })),
  },
  { title: "ErrorInner" },
);
export const ApiError = Type.Array(ErrorInner, { title: "ApiError" });

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((c) => [c, { ...ApiError, description: errorDescriptions[c] ?? "Error" } as TSchema]),
  );

const errorDescriptions: Record<number, string> = {
  400: "Invalid input",
  401: "Your user is not allowed to operate against this API instance",
  403: "Your user, although recognized, is not authorized to use this endpoint",
  404: "Entity not found",
  409: "Version conflict",
  413: "The body is too large",
  415: "The body is not JSON",
  422: "Not possible in the entity's current state",
  429: "Too many requests (retry after Retry-After seconds)",
  500: "Internal error",
  501: "Not implemented on this installation",
  503: "A service is unavailable (retry after Retry-After seconds)",
  504: "A service did not answer in time (for a change: its outcome is unknown)",
};

export const DateTime = (description?: string) => Type.String({ format: "date-time", description });

export const CustomAttributes = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
  description:
    "Attributes that can be added to this entity. These attributes cannot be used within fulfillment processes, but enable you to attach custom data from your systems.",
});

export const LocaleString = Type.Record(Type.String(), Type.String(), {
  description: 'Locale code -> translated text, e.g. {"de_DE": "Getränke"}',
});

/**
 * A list endpoint's `size` query parameter: 1 to `limits.maximum`, `limits.default` when absent (the
 * validator fills it in). `limits` is the endpoint's one declaration of its page sizes.
 */
export const PageSizeQuery = (limits: PageLimits = LIST_PAGE, description = "Page size") =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: limits.maximum,
      default: limits.default,
      description: `${description} (default ${limits.default}, maximum ${limits.maximum})`,
    }),
  );

/** `size` (the spec's list page: 1..500, default 25) and `startAfterId` of REST list endpoints. */
export const ListQuery = {
  size: PageSizeQuery(),
  startAfterId: Type.Optional(Type.String({ maxLength: 256, description: "Return entities after this id" })),
};

/** A list request's page for its RPC: `size` as validated (else the endpoint's default) and `startAfterId`. */
export const listPage = (q: { size?: number; startAfterId?: string }, limits: PageLimits = LIST_PAGE) => ({
  size: q.size ?? limits.default,
  startAfterId: q.startAfterId ?? "",
});

/** A list endpoint's querystring: the page parameters (`size`, `startAfterId`) and its declared filters. */
export const listQuery = <P extends TProperties, Q extends TProperties = typeof ListQuery>(
  filters: TObject<P>,
  page: Q = ListQuery as unknown as Q,
) => Type.Object({ ...page, ...filters.properties });

/**
 * The list RPC's `filters` from a REST query or GraphQL arguments: the declared filters that were
 * given (null, GraphQL's "not given", is dropped), comma-joined values of `CommaList` filters split
 * (400 TOO_MANY_VALUES past the declared maximum). REST handlers and GraphQL resolvers share it.
 */
export function listFilters(filters: TObject, values: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [name, schema] of Object.entries(filters.properties)) {
    const value = values[name];
    if (value === undefined || value === null) continue;
    if (!(schema as Record<string, unknown>)[COMMA_SEPARATED]) {
      out[name] = value as Json;
      continue;
    }
    const items = (value as string[])
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter(Boolean);
    const max = Number((schema as { maxItems?: number }).maxItems);
    if (items.length > max) throw invalid("TOO_MANY_VALUES", `${name} takes at most ${max} values.`, name);
    out[name] = items;
  }
  return out;
}

export const PageInfo = Type.Object(
  {
    startCursor: Type.String(),
    endCursor: Type.String(),
    hasNextPage: Type.Boolean(),
    hasPreviousPage: Type.Boolean(),
  },
  { title: "PageInfo" },
);

const Str = Type.String({ maxLength: 256 });
const StrList = Type.Array(Str, { maxItems: 25 });

/** eq, notEq, gt, gte, lt, lte over numbers (NumberEqFilter; NumberFilter adds in/notIn). */
const NumberComparisons = {
  eq: Type.Optional(Type.Number()),
  notEq: Type.Optional(Type.Number()),
  gt: Type.Optional(Type.Number()),
  gte: Type.Optional(Type.Number()),
  lt: Type.Optional(Type.Number()),
  lte: Type.Optional(Type.Number()),
};

/** The platform's filter operator sets (schema names as in the reference). */
export const Filters = {
  StringFilter: Type.Object(
    {
      eq: Type.Optional(Str),
      notEq: Type.Optional(Str),
      in: Type.Optional(StrList),
      notIn: Type.Optional(StrList),
    },
    { additionalProperties: false },
  ),
  StringSearchFilter: Type.Object(
    {
      eq: Type.Optional(Str),
      notEq: Type.Optional(Str),
      in: Type.Optional(StrList),
      notIn: Type.Optional(StrList),
      like: Type.Optional(Str),
    },
    { additionalProperties: false },
  ),
  StringEqFilter: Type.Object(
    { eq: Type.Optional(Str), notEq: Type.Optional(Str) },
    { additionalProperties: false },
  ),
  BooleanFilter: Type.Object(
    { eq: Type.Optional(Type.Boolean()), notEq: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  NumberEqFilter: Type.Object(NumberComparisons, { additionalProperties: false }),
  NumberFilter: Type.Object(
    {
      ...NumberComparisons,
      in: Type.Optional(Type.Array(Type.Number(), { maxItems: 25 })),
      notIn: Type.Optional(Type.Array(Type.Number(), { maxItems: 25 })),
    },
    { additionalProperties: false },
  ),
  DateFilter: Type.Object(
    {
      eq: Type.Optional(DateTime()),
      notEq: Type.Optional(DateTime()),
      gt: Type.Optional(DateTime()),
      gte: Type.Optional(DateTime()),
      lt: Type.Optional(DateTime()),
      lte: Type.Optional(DateTime()),
      after: Type.Optional(
        Type.String({ maxLength: 256, description: "ISO-8601 duration relative to now, e.g. -P1D" }),
      ),
      before: Type.Optional(
        Type.String({ maxLength: 256, description: "ISO-8601 duration relative to now, e.g. P1W" }),
      ),
    },
    { additionalProperties: false },
  ),
  KeyExistsFilter: Type.Object({ exists: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  EnumFilter: (values: readonly string[]) => {
    const E = Type.Union(values.map((v) => Type.Literal(v)));
    return Type.Object(
      { eq: Type.Optional(E), notEq: Type.Optional(E), in: Type.Optional(Type.Array(E, { maxItems: 500 })) },
      { additionalProperties: false },
    );
  },
};

/**
 * A `<Entity>SearchQuery`: the field filters plus recursive `and`/`or` (at most 500 entries each).
 * Extra properties are rejected, so an unknown query field is a 400.
 */
export function SearchQuery(title: string, fields: Record<string, TSchema>) {
  return Type.Recursive(
    (Self) =>
      Type.Object(
        {
          ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])),
          and: Type.Optional(Type.Array(Self, { maxItems: 500 })),
          or: Type.Optional(Type.Array(Self, { maxItems: 500 })),
        },
        { additionalProperties: false },
      ),
    { $id: title, title },
  );
}

const Direction = Type.Union([Type.Literal("ASC"), Type.Literal("DESC")]);

/** A `<Entity>Sort` entry: exactly one field; map fields (customAttributes) take {key: direction}. */
export function SortEntry(title: string, fields: readonly string[], mapFields: readonly string[] = []) {
  return Type.Object(
    {
      ...Object.fromEntries(fields.map((f) => [f, Type.Optional(Direction)])),
      ...Object.fromEntries(
        mapFields.map((f) => [
          f,
          Type.Optional(Type.Record(Type.String(), Direction, { minProperties: 1, maxProperties: 1 })),
        ]),
      ),
    },
    { title, minProperties: 1, maxProperties: 1, additionalProperties: false },
  );
}

/** A `<Entity>SearchPayload` (paging combinations are checked by the search runner). */
export function SearchPayload<Q extends TSchema, S extends TSchema>(title: string, query: Q, sort: S) {
  return Type.Object(
    {
      query,
      sort: Type.Optional(Type.Array(sort, { minItems: 1, maxItems: 1 })),
      after: Type.Optional(
        Type.String({
          maxLength: 4096,
          description: "pageInfo.endCursor of the previous page; not with before/last",
        }),
      ),
      before: Type.Optional(
        Type.String({
          maxLength: 4096,
          description: "pageInfo.startCursor of the next page; not with after/size",
        }),
      ),
      size: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: SEARCH_PAGE.maximum,
          description: `Forward page size (default ${SEARCH_PAGE.default}); not with last`,
        }),
      ),
      last: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: SEARCH_PAGE.maximum,
          description: `Backward page size (default ${SEARCH_PAGE.default}); not with size`,
        }),
      ),
      startAfterId: Type.Optional(
        Type.String({
          maxLength: 256,
          deprecated: true,
          description:
            "The ID to start after (excluding it), in the request's sort order. Deprecated, use `after` with the value provided in `pageInfo.endCursor` instead; not with after/before/last",
        }),
      ),
      options: Type.Optional(
        Type.Object({ withTotal: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      ),
    },
    { title, additionalProperties: false },
  );
}

/**
 * Route option for responses that are documents passed through from a service (pick jobs, runs):
 * serialize them as they are. The response schemas still document them in the OpenAPI document,
 * but do not filter them (fast-json-stringify would drop any field a schema does not list).
 */
export const plainJson = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
} as const;

/**
 * A request's `version` (optimistic locking): an integer, bounded so that it survives the RPC's
 * int64 (an unbounded one such as 1e308 would otherwise fail in the gateway, not as a 400).
 */
export const RequestVersion = (opts: { minimum?: number; description?: string } = {}) =>
  Type.Integer({
    minimum: opts.minimum ?? -Number.MAX_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      opts.description ?? "The version of the document to be used in optimistic locking mechanisms.",
  });

/** An optional property (the reference marks most of them so). */
export const opt = <T extends TSchema>(t: T) => Type.Optional(t);

/** Options of an object the reference closes (`additionalProperties: false`). */
export const closed = { additionalProperties: false } as const;

/**
 * A body that is exactly one of `variants`, told apart by `property` (each variant declares it as a
 * one-value enum): one validation pass picks the variant by that value and reports the variant's own
 * errors (Ajv `discriminator`), instead of "must match a schema in oneOf".
 */
export function OneOf<const T extends TSchema[]>(
  property: string,
  variants: [...T],
  opts: { title?: string; description?: string; deprecated?: boolean } = {},
) {
  return Type.Unsafe<Static<TUnion<T>>>({
    type: "object",
    required: [property],
    discriminator: { propertyName: property },
    oneOf: variants,
    ...opts,
  });
}

/** `type: object` without properties: free-form. */
export const FreeObject = (description?: string) =>
  Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });
/** `t` or null. */
export const nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
