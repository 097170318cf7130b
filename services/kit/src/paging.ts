/**
 * Page sizes of the public API, declared once: the gateway's request schemas (REST and GraphQL)
 * and the services' own defaults (for RPC callers that send no size) take them from here. An
 * endpoint whose default differs from its family's declares its own limits beside its schema.
 */
export interface PageLimits {
  /** The page size when the request names none. */
  readonly default: number;
  /** The largest page size accepted; one more is a 400 naming the size parameter. */
  readonly maximum: number;
}

/** REST list endpoints (`size` + `startAfterId`): default 25, maximum 500 (spec, Limits). */
export const LIST_PAGE: PageLimits = { default: 25, maximum: 500 };

/** Search endpoints (`size` / `last`): default 20 (spec, Limits), maximum 250 (reference). */
export const SEARCH_PAGE: PageLimits = { default: 20, maximum: 250 };

/** A service's page size from an RPC message: the default when none (0) was sent, else capped. */
export const pageSize = (size: number | undefined, limits: PageLimits = LIST_PAGE): number =>
  size && size > 0 ? Math.min(size, limits.maximum) : limits.default;
