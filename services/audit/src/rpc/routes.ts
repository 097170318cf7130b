/** AuditService handlers. */
import type { ConnectRouter } from "@connectrpc/connect";
import { AuditListFilters } from "@fop/contracts/audit";
import { listCall } from "@fop/kit/rpc/filters";
import { pageOut, searchParams } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { AuditService } from "@fop/proto/fop/audit/v1/audit_pb.js";
import { listAudits, searchAudits } from "../usecases/audits.ts";
import type { AuditDeps } from "../usecases/deps.ts";
import { toAuditMessage } from "./audit.mapper.ts";

export function auditRoutes(deps: AuditDeps) {
  return (router: ConnectRouter) =>
    router.service(AuditService, {
      async listAudits(req, hctx) {
        const result = await listAudits(deps, ...listCall(hctx, AuditListFilters, req));
        return { audits: result.audits.map(toAuditMessage), total: BigInt(result.total) };
      },
      async searchAudits(req, hctx) {
        const page = await searchAudits(deps, requestContext(hctx), searchParams(req.search));
        return {
          audits: page.rows.map(toAuditMessage),
          ...pageOut(page),
        };
      },
    });
}
