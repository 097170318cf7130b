/** ReturnsService handlers: read the request context, call the use case, map the result. Nothing else. */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { invalid } from "@fop/kit/errors";
import { listPage } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { ReasonAction as Action, ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { JsonObject as DomainJson, ReasonAction } from "../domain/types.ts";
import type { ReturnsDeps } from "../usecases/deps.ts";
import * as reasons from "../usecases/reasons.ts";
import { toReasonMessage } from "./mapper.ts";

const asDomain = (o: JsonObject | undefined): DomainJson => (o ?? {}) as DomainJson;

function actionOf(a: Action): ReasonAction {
  if (a === Action.CANCELATION) return "CANCELATION";
  if (a === Action.REROUTE) return "REROUTE";
  throw invalid("UNKNOWN_ACTION", "action must name a reason resource.", "action");
}

export function returnRoutes(deps: ReturnsDeps) {
  return (router: ConnectRouter) =>
    router.service(ReturnsService, {
      async createReason(req, hctx) {
        const r = await reasons.createReason(
          deps,
          requestContext(hctx),
          actionOf(req.action),
          asDomain(req.body),
        );
        return { reason: toReasonMessage(r.reason), created: r.created };
      },
      async getReason(req, hctx) {
        return {
          reason: toReasonMessage(
            await reasons.getReason(deps, requestContext(hctx), actionOf(req.action), req.id),
          ),
        };
      },
      async listReasons(req, hctx) {
        const r = await reasons.listReasons(
          deps,
          requestContext(hctx),
          actionOf(req.action),
          listPage(req.page),
        );
        return { reasons: r.rows.map(toReasonMessage), hasNextPage: r.hasNextPage, total: BigInt(r.total) };
      },
      async updateReason(req, hctx) {
        const r = await reasons.putReason(
          deps,
          requestContext(hctx),
          actionOf(req.action),
          req.id,
          asDomain(req.body),
        );
        return { reason: toReasonMessage(r) };
      },
      async deleteReason(req, hctx) {
        await reasons.deleteReason(deps, requestContext(hctx), actionOf(req.action), req.id);
        return {};
      },
    });
}
