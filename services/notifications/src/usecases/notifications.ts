/** POST /api/notifications/search: the tenant's stored notifications, keyset-paged. */
import {
  NOTIFICATION_CATEGORIES,
  NOTIFICATION_STATUSES,
  PRIORITY_LABELS,
} from "@fop/contracts/notifications";
import type { RequestContext } from "@fop/kit/context";
import { runSearch, type SearchPage, type SearchParams, type SearchResource } from "@fop/kit/search/keyset";
import { SCHEMA } from "../db/orm.ts";
import type { JsonObject } from "../domain/types.ts";
import type { NotificationsDeps } from "./deps.ts";

/** The reference's NotificationSearchQuery fields and NotificationSort. */
export const notificationSearch: SearchResource = {
  table: `${SCHEMA}.notification`,
  select: "t.id, t.doc::text as doc",
  fields: {
    category: {
      kind: "enum",
      column: "t.category",
      values: NOTIFICATION_CATEGORIES,
      ops: ["eq", "notEq", "in"],
    },
    created: { kind: "date", column: "t.created" },
    facilityRef: { kind: "string", column: "t.facility_ref", ops: ["eq", "notEq", "in", "notIn"] },
    priority: {
      kind: "nested",
      fields: {
        label: {
          kind: "enum",
          column: "t.priority_label",
          values: PRIORITY_LABELS,
          ops: ["eq", "notEq", "in"],
        },
        sequence: { kind: "number", column: "t.priority_sequence" },
      },
    },
    status: { kind: "enum", column: "t.status", values: NOTIFICATION_STATUSES, ops: ["eq", "notEq", "in"] },
  },
  sorts: {
    created: { expr: "t.created", type: "timestamptz", nullable: false },
    status: { expr: "t.status", type: "text", nullable: false },
  },
};

/** One page; rows are the stored documents as JSON text (sent on unparsed). */
export async function searchNotifications(
  deps: NotificationsDeps,
  ctx: RequestContext,
  params: SearchParams,
): Promise<SearchPage<string>> {
  const page = await runSearch<{ doc: string }>(deps.db, ctx.tenant, notificationSearch, params, {
    cursors: deps.cursors,
    now: deps.now(),
  });
  return { ...page, rows: page.rows.map((r) => r.doc) };
}

export type { JsonObject };
