/** ReturnsService handlers: read the request context, call the use case, map the result. Nothing else. */

import type { ConnectRouter } from "@connectrpc/connect";
import { HandoverConfigurationForUpsert } from "@fop/contracts/rest/handover";
import { ParcelForCreation } from "@fop/contracts/rest/itemreturn-parcels";
import {
  AddItemReturnToItemReturnJob,
  ItemReturnActionsParameter,
  ItemReturnJobActionsParameter,
  ItemReturnJobForCreation,
  ItemReturnLineItemForUpdate,
  ItemReturnNotReturnableLineItemForUpdate,
  ReplaceReturnedLineItems,
  ReplaceReturnedNotReturnableLineItems,
  ReturnConfiguration,
} from "@fop/contracts/rest/itemreturns";
import { ReasonForCreation, ReasonForModification } from "@fop/contracts/rest/reasons";
import { ItemReturnJobListFilters, ItemReturnListFilters } from "@fop/contracts/returns";
import { invalid } from "@fop/kit/errors";
import { readBody } from "@fop/kit/rpc/body";
import { listCall } from "@fop/kit/rpc/filters";
import { documentJson } from "@fop/kit/rpc/proto";
import { listPage } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import {
  ReasonAction as Action,
  ReturnLineItemKind,
  ReturnsService,
} from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { ReasonAction } from "../domain/types.ts";
import type { ReturnsDeps } from "../usecases/deps.ts";
import * as handoverConfig from "../usecases/handover-config.ts";
import * as itemReturns from "../usecases/itemreturns.ts";
import * as jobs from "../usecases/jobs.ts";
import * as reasons from "../usecases/reasons.ts";
import * as returnConfig from "../usecases/return-config.ts";
import { storedJobMessage, toJobMessage, toParcelMessage, toReasonMessage } from "./mapper.ts";

function kindOf(k: ReturnLineItemKind): "returned" | "notReturnable" {
  if (k === ReturnLineItemKind.RETURNED) return "returned";
  if (k === ReturnLineItemKind.NOT_RETURNABLE) return "notReturnable";
  throw invalid("UNKNOWN_KIND", "kind must name a line item list.", "kind");
}
/** A per-tenant configuration document (return, handover) as its RPC message. */
const configurationMessage = (c: { version: number }) => ({
  version: BigInt(c.version),
  documentJson: documentJson(c),
});

/** A reason's REST bodies per kind (cancelation reasons, reroute descriptions), built once. */
const REASON_BODIES: Record<ReasonAction, { creation: object; modification: object }> = {
  CANCELATION: {
    creation: ReasonForCreation("CancelationReasonForCreation"),
    modification: ReasonForModification("CancelationReasonForModification"),
  },
  REROUTE: {
    creation: ReasonForCreation("RerouteDescriptionForCreation"),
    modification: ReasonForModification("RerouteDescriptionForModification"),
  },
};

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
          readBody(REASON_BODIES[actionOf(req.action)].creation, req.body),
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
          readBody(REASON_BODIES[actionOf(req.action)].modification, req.body),
        );
        return { reason: toReasonMessage(r) };
      },
      async deleteReason(req, hctx) {
        await reasons.deleteReason(deps, requestContext(hctx), actionOf(req.action), req.id);
        return {};
      },

      async createItemReturnJob(req, hctx) {
        return {
          itemReturnJob: toJobMessage(
            await jobs.createJob(deps, requestContext(hctx), readBody(ItemReturnJobForCreation, req.body)),
          ),
        };
      },
      async getItemReturnJob(req, hctx) {
        return { itemReturnJob: storedJobMessage(await jobs.readJob(deps, requestContext(hctx), req.id)) };
      },
      async listItemReturnJobs(req, hctx) {
        const r = await jobs.listJobs(deps, ...listCall(hctx, ItemReturnJobListFilters, req));
        return { itemReturnJobs: r.rows.map(storedJobMessage), total: BigInt(r.total) };
      },
      async addItemReturn(req, hctx) {
        const j = await itemReturns.addItemReturn(
          deps,
          requestContext(hctx),
          req.itemReturnJobId,
          readBody(AddItemReturnToItemReturnJob, req.body),
        );
        return { itemReturnJob: toJobMessage(j) };
      },
      async listItemReturns(req, hctx) {
        const list = await itemReturns.listItemReturns(deps, requestContext(hctx), req.itemReturnJobId);
        return { itemReturnsJson: list.map(documentJson) };
      },
      async getItemReturn(req, hctx) {
        return {
          itemReturnJson: documentJson(
            await itemReturns.getItemReturn(deps, requestContext(hctx), req.itemReturnJobId, req.id),
          ),
        };
      },
      async itemReturnAction(req, hctx) {
        const j = await itemReturns.itemReturnAction(
          deps,
          requestContext(hctx),
          req.itemReturnJobId,
          req.id,
          readBody(ItemReturnActionsParameter, req.action),
        );
        return { itemReturnJob: toJobMessage(j) };
      },
      async patchReturnLineItem(req, hctx) {
        const kind = kindOf(req.kind);
        const j = await itemReturns.patchLine(
          deps,
          requestContext(hctx),
          req.itemReturnJobId,
          req.itemReturnId,
          kind,
          req.id,
          readBody(
            kind === "returned" ? ItemReturnLineItemForUpdate : ItemReturnNotReturnableLineItemForUpdate,
            req.body,
          ),
        );
        return { itemReturnJob: toJobMessage(j) };
      },
      async replaceReturnLineItems(req, hctx) {
        const j = await itemReturns.replaceLines(
          deps,
          requestContext(hctx),
          req.itemReturnJobId,
          req.itemReturnId,
          kindOf(req.kind),
          readBody(
            kindOf(req.kind) === "returned"
              ? ReplaceReturnedLineItems
              : ReplaceReturnedNotReturnableLineItems,
            req.body,
          ),
        );
        return { itemReturnJob: toJobMessage(j) };
      },
      async deleteItemReturn(req, hctx) {
        const version = req.itemReturnJobVersion === undefined ? undefined : Number(req.itemReturnJobVersion);
        const j = await itemReturns.deleteItemReturn(
          deps,
          requestContext(hctx),
          req.itemReturnJobId,
          req.id,
          version,
        );
        return { itemReturnJob: toJobMessage(j) };
      },
      async findItemReturns(req, hctx) {
        const r = await itemReturns.findItemReturns(deps, ...listCall(hctx, ItemReturnListFilters, req));
        return { itemReturnsJson: r.itemReturns.map(documentJson), totalCount: BigInt(r.total) };
      },
      async createItemReturnParcel(req, hctx) {
        const p = await itemReturns.createParcel(
          deps,
          requestContext(hctx),
          req.itemReturnJobId,
          req.itemReturnId,
          readBody(ParcelForCreation, req.body),
        );
        return { parcel: toParcelMessage(p) };
      },
      async getReturnConfiguration(_req, hctx) {
        const c = await returnConfig.getReturnConfiguration(deps, requestContext(hctx));
        return { configuration: configurationMessage(c) };
      },
      async putReturnConfiguration(req, hctx) {
        const r = await returnConfig.upsertReturnConfiguration(
          deps,
          requestContext(hctx),
          readBody(ReturnConfiguration, req.body),
        );
        return {
          configuration: configurationMessage(r.config),
          created: r.created,
        };
      },
      async getHandoverConfiguration(_req, hctx) {
        const c = await handoverConfig.getHandoverConfiguration(deps, requestContext(hctx));
        return { configuration: configurationMessage(c) };
      },
      async putHandoverConfiguration(req, hctx) {
        const r = await handoverConfig.upsertHandoverConfiguration(
          deps,
          requestContext(hctx),
          readBody(HandoverConfigurationForUpsert, req.body),
        );
        return {
          configuration: configurationMessage(r.config),
          created: r.created,
        };
      },
      async listRefuseReasons(_req, hctx) {
        const list = await handoverConfig.listRefusedReasons(deps, requestContext(hctx));
        return { refusedReasonsJson: documentJson(list) };
      },
      async itemReturnJobAction(req, hctx) {
        const j = await jobs.applyJobAction(
          deps,
          requestContext(hctx),
          req.id,
          readBody(ItemReturnJobActionsParameter, req.action),
        );
        return { itemReturnJob: toJobMessage(j) };
      },
    });
}
