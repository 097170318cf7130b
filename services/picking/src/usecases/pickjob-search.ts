/** What `POST /api/pickjobs/search` may filter and sort on, mapped onto pick_job's derived columns. */
import type { JsonValue } from "@bufbuild/protobuf";
import { invalid } from "@fop/kit/errors";
import type { SearchResource } from "@fop/kit/search/keyset";
import { isObject } from "@fop/kit/search/query";
import type { SqlBuilder } from "@fop/kit/search/sql-builder";
import { SCHEMA } from "../db/orm.ts";
import { TARGET_TIME_KEY } from "../db/sort-keys.ts";
import { PICK_JOB_STATUSES, PICKING_METHODS } from "../domain/types.ts";

/**
 * transfers: {contains: {id: {eq | notEq}}, exists: boolean}. `contains` matches when at least one
 * transfer matches; `exists: false` matches jobs without transfers.
 */
function transfersFilter(value: JsonValue, b: SqlBuilder, path: string): string {
  if (!isObject(value) || Object.keys(value).length === 0) {
    throw invalid("INVALID_QUERY_VALUE", `${path} must be an object with contains and/or exists.`, path);
  }
  const parts: string[] = [];
  for (const [op, v] of Object.entries(value)) {
    const p = `${path}/${op}`;
    if (op === "exists") {
      if (typeof v !== "boolean") throw invalid("INVALID_QUERY_VALUE", `${p} must be true or false.`, p);
      parts.push(v ? "cardinality(t.transfer_ids) > 0" : "cardinality(t.transfer_ids) = 0");
    } else if (op === "contains") {
      const id = isObject(v) ? v.id : undefined;
      if (!isObject(v) || Object.keys(v).some((k) => k !== "id") || !isObject(id)) {
        throw invalid("INVALID_QUERY_VALUE", `${p} must be {"id": {"eq" | "notEq": "..."}}.`, p);
      }
      for (const [idOp, s] of Object.entries(id)) {
        const ip = `${p}/id/${idOp}`;
        if (typeof s !== "string" || s.length > 256) {
          throw invalid("INVALID_QUERY_VALUE", `${ip} must be a string of at most 256 characters.`, ip);
        }
        if (idOp === "eq") parts.push(`t.transfer_ids @> ${b.param([s], "text[]")}`);
        else if (idOp === "notEq")
          parts.push(
            `EXISTS (SELECT 1 FROM unnest(t.transfer_ids) AS x(v) WHERE x.v <> ${b.param(s, "text")})`,
          );
        else
          throw invalid(
            "UNKNOWN_QUERY_OPERATOR",
            `${p}/id: unknown operator ${JSON.stringify(idOp)}; allowed: eq, notEq.`,
            ip,
          );
      }
    } else {
      throw invalid(
        "UNKNOWN_QUERY_OPERATOR",
        `${path}: unknown operator ${JSON.stringify(op)}; allowed: contains, exists.`,
        p,
      );
    }
  }
  return parts.length === 1 ? parts[0]! : `(${parts.join(" AND ")})`;
}

export const pickJobSearch: SearchResource = {
  table: `${SCHEMA}.pick_job`,
  // The documents as JSON text, passed on without parsing.
  select: "t.id, t.doc::text as json",
  fields: {
    id: { kind: "string", column: "t.id", ops: ["eq", "notEq", "in", "notIn"], uuid: true },
    orderRef: { kind: "string", column: "t.order_ref", ops: ["eq", "notEq"] },
    facilityRef: { kind: "string", column: "t.facility_ref", ops: ["eq", "notEq"] },
    tenantOrderId: { kind: "string", column: "t.tenant_order_id", ops: ["eq", "notEq", "in", "notIn"] },
    consumerName: {
      kind: "string",
      column: "t.consumer_name",
      ops: ["eq", "notEq", "in", "notIn", "like"],
    },
    created: { kind: "date", column: "t.created" },
    lastModified: { kind: "date", column: "t.last_modified" },
    targetTime: { kind: "date", column: "t.target_time" },
    status: { kind: "enum", column: "t.status", values: PICK_JOB_STATUSES, ops: ["eq", "notEq", "in"] },
    preferredPickingMethods: {
      kind: "contains",
      column: "t.preferred_picking_methods",
      ops: ["eq", "notEq", "in"],
      values: PICKING_METHODS,
    },
    tenantArticleIds: { kind: "contains", column: "t.tenant_article_ids", ops: ["eq", "notEq"] },
    transfers: { kind: "custom", translate: (value, b, path) => transfersFilter(value, b, path) },
  },
  sorts: {
    created: { expr: "t.created", type: "timestamptz", nullable: false },
    lastModified: { expr: "t.last_modified", type: "timestamptz", nullable: false },
    // Jobs without targetTime sort last ASC, first DESC (as nulls would), via a non-null key.
    targetTime: { expr: TARGET_TIME_KEY, type: "timestamptz", nullable: false },
    tenantOrderId: { expr: "t.tenant_order_id", type: "text", nullable: true },
  },
};
