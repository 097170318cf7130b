/**
 * PickingService handlers: read the request context, call the use case, map the result. Nothing else.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { PickJobListFilters } from "@fop/contracts/picking";
import { PickingConfigurationsPatch } from "@fop/contracts/rest/pickingconfig";
import {
  PickingPatchActions,
  PickJobActionsParameter,
  PickJobForCreation,
} from "@fop/contracts/rest/pickjobs";
import {
  PickRunActionsParameter,
  PickRunForCreation,
  PickRunPatchAction,
} from "@fop/contracts/rest/pickruns";
import { invalid } from "@fop/kit/errors";
import { readBody } from "@fop/kit/rpc/body";
import { listCall } from "@fop/kit/rpc/filters";
import { pageOut, searchParams } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { PickingService, PickJobDocumentKind } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { publicPickRun } from "../domain/pickrun.ts";
import type { PickJob, PickRun } from "../domain/types.ts";
import type { PickingDeps } from "../usecases/deps.ts";
import * as pickingConfig from "../usecases/picking-config.ts";
import * as jobs from "../usecases/pickjobs.ts";
import * as runs from "../usecases/pickruns.ts";
import {
  storedPickJobMessage,
  toPickingConfigurationMessage,
  toPickJobMessage,
  toPickRunMessage,
} from "./mapper.ts";

const jobOut = (job: PickJob) => ({ pickJob: toPickJobMessage(job) });
const runOut = (run: PickRun) => ({ pickRun: toPickRunMessage(publicPickRun(run) as unknown as PickRun) });
const opt = (s: string) => s || undefined;

/** The list endpoint's stripped read model (reference StrippedPickJob). */
function stripped(job: PickJob): JsonObject {
  const shipping = (job.deliveryinformation.details as { shipping?: { carrierKey?: string } } | undefined)
    ?.shipping;
  return JSON.parse(
    JSON.stringify({
      id: job.id,
      version: job.version,
      created: job.created,
      lastModified: job.lastModified,
      status: job.status,
      facilityRef: job.facilityRef,
      orderRef: job.orderRef,
      carrierKey: shipping?.carrierKey,
      targetTime: job.deliveryinformation.targetTime,
    }),
  ) as JsonObject;
}

/**
 * A PATCH's version and actions, as the RPC carries them, read as the REST body they are
 * ({version, actions}) with its schema.
 */
function patchBody(schema: object, req: { version: bigint; actions: JsonObject[] }) {
  const body = readBody(schema, { version: Number(req.version), actions: req.actions });
  return { version: body.version as number, actions: body.actions as JsonObject[] };
}

export function pickingRoutes(deps: PickingDeps) {
  return (router: ConnectRouter) =>
    router.service(PickingService, {
      async listPickJobs(req, hctx) {
        const result = await jobs.listPickJobs(deps, ...listCall(hctx, PickJobListFilters, req));
        return { pickjobs: result.pickjobs.map(stripped), total: BigInt(result.total) };
      },
      async createPickJob(req, hctx) {
        const body = readBody(PickJobForCreation, req.body);
        return jobOut(await jobs.createPickJob(deps, requestContext(hctx), body));
      },
      async getPickJob(req, hctx) {
        return { pickJob: storedPickJobMessage(await jobs.readPickJob(deps, requestContext(hctx), req.id)) };
      },
      async batchGetPickJobs(req, hctx) {
        const docs = await jobs.readPickJobs(deps, requestContext(hctx), req.ids);
        return { pickJobs: docs.map(storedPickJobMessage) };
      },
      async pickJobAction(req, hctx) {
        return jobOut(
          await jobs.pickJobAction(
            deps,
            requestContext(hctx),
            req.id,
            readBody(PickJobActionsParameter, req.action),
          ),
        );
      },
      async patchPickJob(req, hctx) {
        const body = patchBody(PickingPatchActions, req);
        return jobOut(
          await jobs.patchPickJob(deps, requestContext(hctx), req.id, body.version, body.actions),
        );
      },
      async searchPickJobs(req, hctx) {
        const result = await jobs.searchPickJobs(deps, requestContext(hctx), searchParams(req.search));
        return {
          pickJobsJson: result.rows.map((json) => Buffer.from(json, "utf8")),
          ...pageOut(result),
        };
      },
      async getAvailableSubstitutes(req, hctx) {
        const r = await jobs.getAvailableSubstitutes(
          deps,
          requestContext(hctx),
          req.pickJobId,
          req.pickLineItemId,
        );
        return { tenantArticleId: r.tenantArticleId, substitutes: r.substitutes as unknown as JsonObject[] };
      },
      async getPickJobDocument(req, hctx) {
        const kind =
          req.kind === PickJobDocumentKind.RETURN_NOTE
            ? "RETURN_NOTE"
            : req.kind === PickJobDocumentKind.TRANSFER_LABEL
              ? "TRANSFER_LABEL"
              : req.kind === PickJobDocumentKind.DELIVERY_NOTE
                ? "DELIVERY_NOTE"
                : undefined;
        if (!kind) throw invalid("UNKNOWN_DOCUMENT", "kind must name a pick job document.", "kind");
        return jobs.getPickJobDocument(deps, requestContext(hctx), req.id, kind, opt(req.locale));
      },

      async createPickRun(req, hctx) {
        const body = readBody(PickRunForCreation, req.body);
        return runOut(await runs.createPickRun(deps, requestContext(hctx), body));
      },
      async getPickRun(req, hctx) {
        return runOut(await runs.getPickRun(deps, requestContext(hctx), req.id));
      },
      async patchPickRun(req, hctx) {
        const body = patchBody(PickRunPatchAction, req);
        return runOut(
          await runs.patchPickRun(deps, requestContext(hctx), req.id, body.version, body.actions),
        );
      },
      async pickRunAction(req, hctx) {
        return runOut(
          await runs.pickRunAction(
            deps,
            requestContext(hctx),
            req.id,
            readBody(PickRunActionsParameter, req.action),
          ),
        );
      },
      async removePickJobFromPickRun(req, hctx) {
        return runOut(
          await runs.removePickJob(deps, requestContext(hctx), req.id, Number(req.version), req.pickJobRef),
        );
      },

      async getPickingConfiguration(_req, hctx) {
        const c = await pickingConfig.getPickingConfiguration(deps, requestContext(hctx));
        return { configuration: toPickingConfigurationMessage(c) };
      },
      async patchPickingConfiguration(req, hctx) {
        const r = await pickingConfig.patchPickingConfigurationOf(
          deps,
          requestContext(hctx),
          readBody(PickingConfigurationsPatch, req.body),
        );
        return { configuration: toPickingConfigurationMessage(r.config), created: r.created };
      },
    });
}
