/** REST search body <-> the common SearchRequest / PageInfo messages (shared by every search route). */
import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import {
  type PageInfo,
  type SearchRequestSchema,
  SortDirection,
} from "@fop/proto/fop/common/v1/common_pb.js";

export interface SearchBody {
  query: JsonObject;
  sort?: Record<string, string | Record<string, string> | undefined>[];
  after?: string;
  before?: string;
  size?: number;
  last?: number;
  startAfterId?: string;
  options?: { withTotal?: boolean };
}

export function toSearchRequest(body: SearchBody): MessageInitShape<typeof SearchRequestSchema> {
  const [entry] = body.sort ?? [];
  let sort: MessageInitShape<typeof SearchRequestSchema>["sort"];
  if (entry) {
    const [field, value] = Object.entries(entry)[0]!;
    const [key, dir] =
      typeof value === "string" ? ["", value] : (Object.entries(value ?? {})[0] ?? ["", "ASC"]);
    sort = { field, key, direction: dir === "DESC" ? SortDirection.DESC : SortDirection.ASC };
  }
  return {
    query: body.query,
    sort,
    after: body.after ?? "",
    before: body.before ?? "",
    size: body.size ?? 0,
    last: body.last ?? 0,
    withTotal: body.options?.withTotal ?? false,
    startAfterId: body.startAfterId ?? "",
  };
}

export function toPageInfo(p: PageInfo | undefined) {
  return {
    startCursor: p?.startCursor ?? "",
    endCursor: p?.endCursor ?? "",
    hasNextPage: p?.hasNextPage ?? false,
    hasPreviousPage: p?.hasPreviousPage ?? false,
  };
}

/** `total` only when asked for. */
export const withTotal = (total: bigint | undefined) => (total === undefined ? {} : { total: Number(total) });
