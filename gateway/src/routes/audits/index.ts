/** /api/audits: the audit log (deprecated list and the alpha search). */
import { AuditListFilters } from "@fop/contracts/audit";
import {
  AuditListQuery,
  AuditPaginatedResult,
  AuditSearchPayload,
  AuditsResult,
} from "@fop/contracts/rest/audits";
import { errorResponses, listFilters, listPage } from "@fop/contracts/rest/common";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendDocumentPage } from "../documents.ts";
import { toPageInfo, toSearchRequest, withTotal } from "../search.ts";

const tags = ["Audits"];

export function auditRoutes(app: RouteApp, { clients }: RouteDeps): void {
  app.get(
    "/api/audits",
    {
      schema: {
        operationId: "getAudits",
        summary: "List audits (deprecated: use POST /api/audits/search)",
        tags,
        querystring: AuditListQuery,
        response: { 200: AuditsResult, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["AUDIT_READ"], lifecycle: "deprecated", replacement: "/api/audits/search" },
    },
    async (req, reply) => {
      const res = await clients.audit.listAudits(
        { page: listPage(req.query), filters: listFilters(AuditListFilters, req.query) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(
        reply,
        "audits",
        res.audits.map((a) => a.documentJson),
        { total: Number(res.total) },
      );
    },
  );

  app.post(
    "/api/audits/search",
    {
      schema: {
        operationId: "searchAudit",
        summary: "Search audits",
        tags,
        body: AuditSearchPayload,
        response: { 200: AuditPaginatedResult, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["AUDIT_READ"], lifecycle: "alpha" },
    },
    async (req, reply) => {
      const res = await clients.audit.searchAudits(
        { search: toSearchRequest(req.body) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(
        reply,
        "audits",
        res.audits.map((a) => a.documentJson),
        { pageInfo: toPageInfo(res.pageInfo), ...withTotal(res.total) },
      );
    },
  );
}
