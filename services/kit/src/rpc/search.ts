import type { SearchRequest } from "@fop/proto/fop/common/v1/common_pb.js";
import { SortDirection } from "@fop/proto/fop/common/v1/common_pb.js";
import { pageSize } from "../paging.ts";
import type { SearchPage, SearchParams } from "../search/keyset.ts";

/** The common SearchRequest message -> the keyset runner's parameters. */
export function searchParams(req: SearchRequest | undefined): SearchParams {
  if (!req) return {};
  return {
    query: req.query,
    sort: req.sort?.field
      ? {
          field: req.sort.field,
          key: req.sort.key || undefined,
          direction: req.sort.direction === SortDirection.DESC ? "DESC" : "ASC",
        }
      : undefined,
    after: req.after || undefined,
    before: req.before || undefined,
    size: req.size || undefined,
    last: req.last || undefined,
    withTotal: req.withTotal,
    startAfterId: req.startAfterId || undefined,
    withCursors: req.withCursors,
  };
}

/** A list endpoint's page (`size` within LIST_PAGE, see paging.ts; `startAfterId`) from its RPC message. */
export const listPage = (p: { size: number; startAfterId: string } | undefined) => ({
  size: pageSize(p?.size),
  startAfterId: p?.startAfterId ?? "",
});

/** A search page's `pageInfo` and `total` (only when asked for) as the SearchXResponse messages carry them. */
export const pageOut = (page: SearchPage<unknown>) => ({
  pageInfo: page.pageInfo,
  total: page.total === undefined ? undefined : BigInt(page.total),
});
