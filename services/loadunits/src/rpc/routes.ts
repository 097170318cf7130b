/** LoadUnitsService handlers: read the request context, call the use case, map the result. Nothing else. */

import type { ConnectRouter } from "@connectrpc/connect";
import {
  LoadUnitListFilters,
  LoadUnitTypeListFilters,
  OperativeContainerTypeListFilters,
  StackListFilters,
} from "@fop/contracts/loadunits";
import {
  LoadUnitActionsParameter,
  LoadUnitPatch,
  LoadUnitsForCreation,
  LoadUnitTypeForCreation,
  LoadUnitTypePatchActions,
  OperativeContainerTypeForCreation,
  OperativeContainerTypeForUpdate,
  StackForCreation,
} from "@fop/contracts/rest/loadunits";
import { PickingLoadUnitForCreation } from "@fop/contracts/rest/pickjobs";
import { invalid } from "@fop/kit/errors";
import type { JsonObject } from "@fop/kit/json";
import { readBody } from "@fop/kit/rpc/body";
import { listCall, readFilters } from "@fop/kit/rpc/filters";
import { listPage } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { ContainerTypeKind as Kind, LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { ContainerTypeKind, LoadUnit } from "../domain/types.ts";
import * as types from "../usecases/container-types.ts";
import type { LoadUnitsDeps } from "../usecases/deps.ts";
import * as units from "../usecases/loadunits.ts";
import * as stacks from "../usecases/stacks.ts";
import {
  storedLoadUnitMessage,
  storedStackMessage,
  toContainerTypeMessage,
  toLoadUnitMessage,
  toStackMessage,
} from "./mapper.ts";

const opt = (s: string) => s || undefined;
const unitOut = (u: LoadUnit) => ({ loadUnit: toLoadUnitMessage(u) });

function kindOf(k: Kind): ContainerTypeKind {
  if (k === Kind.OPERATIVE) return "OPERATIVE";
  if (k === Kind.LOAD_UNIT_TYPE) return "LOAD_UNIT_TYPE";
  throw invalid("UNKNOWN_KIND", "kind must name a container type resource.", "kind");
}

export function loadUnitRoutes(deps: LoadUnitsDeps) {
  return (router: ConnectRouter) =>
    router.service(LoadUnitsService, {
      async createLoadUnits(req, hctx) {
        const created = await units.createLoadUnits(
          deps,
          requestContext(hctx),
          readBody(LoadUnitsForCreation, { loadUnits: req.loadUnits }).loadUnits as JsonObject[],
        );
        return { loadUnits: created.map(toLoadUnitMessage) };
      },
      async createPickJobLoadUnit(req, hctx) {
        return unitOut(
          await units.createPickJobLoadUnit(
            deps,
            requestContext(hctx),
            req.pickJobId,
            readBody(PickingLoadUnitForCreation, req.body),
          ),
        );
      },
      async getLoadUnit(req, hctx) {
        return {
          loadUnit: storedLoadUnitMessage(
            await units.getLoadUnit(deps, requestContext(hctx), req.id, opt(req.locale)),
          ),
        };
      },
      async listLoadUnits(req, hctx) {
        const r = await units.listLoadUnits(
          deps,
          requestContext(hctx),
          readFilters(LoadUnitListFilters, req.filters),
          { ...listPage(req.page), locale: opt(req.locale) },
        );
        return {
          loadUnits: r.json.map((json) => ({ documentJson: Buffer.from(json, "utf8") })),
          total: BigInt(r.total),
        };
      },
      async listPickJobLoadUnits(req, hctx) {
        const list = await units.listPickJobLoadUnits(deps, requestContext(hctx), req.pickJobId);
        return { loadUnits: list.map(toLoadUnitMessage), total: BigInt(list.length) };
      },
      async listLoadUnitsOfPickJobs(req, hctx) {
        const list = await units.listLoadUnitsOfPickJobs(deps, requestContext(hctx), req.pickJobIds);
        return { loadUnits: list.map(storedLoadUnitMessage) };
      },
      async deleteLoadUnit(req, hctx) {
        return unitOut(await units.deleteLoadUnit(deps, requestContext(hctx), req.id));
      },
      async deleteLoadUnits(req, hctx) {
        const list = await units.deleteLoadUnits(deps, requestContext(hctx), req.pickJobRef, req.ids);
        return { loadUnits: list.map(toLoadUnitMessage), total: BigInt(list.length) };
      },
      async patchLoadUnit(req, hctx) {
        return unitOut(
          await units.patchLoadUnit(deps, requestContext(hctx), req.id, readBody(LoadUnitPatch, req.body)),
        );
      },
      async loadUnitAction(req, hctx) {
        return unitOut(
          await units.loadUnitAction(
            deps,
            requestContext(hctx),
            req.id,
            readBody(LoadUnitActionsParameter, req.action),
          ),
        );
      },
      async getLoadUnitStack(req, hctx) {
        const s = await units.getLoadUnitStack(deps, requestContext(hctx), req.id);
        return { stack: storedStackMessage(s) };
      },

      async createStack(req, hctx) {
        return {
          stack: toStackMessage(
            await stacks.createStack(deps, requestContext(hctx), readBody(StackForCreation, req.body)),
          ),
        };
      },
      async getStack(req, hctx) {
        const s = await stacks.getStack(deps, requestContext(hctx), req.id);
        return { stack: storedStackMessage(s) };
      },
      async batchGetStacks(req, hctx) {
        const list = await stacks.batchGetStacks(deps, requestContext(hctx), req.ids);
        return { stacks: list.map(storedStackMessage) };
      },
      async listStacks(req, hctx) {
        const r = await stacks.listStacks(deps, ...listCall(hctx, StackListFilters, req));
        return {
          stacks: r.rows.map(storedStackMessage),
          total: BigInt(r.total),
        };
      },

      async createContainerType(req, hctx) {
        const kind = kindOf(req.kind);
        const t = await types.createContainerType(
          deps,
          requestContext(hctx),
          kind,
          readBody(
            kind === "OPERATIVE" ? OperativeContainerTypeForCreation : LoadUnitTypeForCreation,
            req.body,
          ),
          opt(req.locale),
        );
        return { containerType: toContainerTypeMessage(kind, t) };
      },
      async getContainerType(req, hctx) {
        const kind = kindOf(req.kind);
        const t = await types.getContainerType(deps, requestContext(hctx), kind, req.id, opt(req.locale));
        return { containerType: toContainerTypeMessage(kind, t) };
      },
      async listContainerTypes(req, hctx) {
        const kind = kindOf(req.kind);
        const filters = kind === "OPERATIVE" ? OperativeContainerTypeListFilters : LoadUnitTypeListFilters;
        const r = await types.listContainerTypes(
          deps,
          requestContext(hctx),
          kind,
          readFilters(filters, req.filters),
          { ...listPage(req.page), locale: opt(req.locale) },
        );
        return {
          containerTypes: r.types.map((t) => toContainerTypeMessage(kind, t)),
          total: BigInt(r.total),
        };
      },
      async updateContainerType(req, hctx) {
        const kind = kindOf(req.kind);
        const t = await types.updateContainerTypeUseCase(
          deps,
          requestContext(hctx),
          kind,
          req.id,
          readBody(
            kind === "OPERATIVE" ? OperativeContainerTypeForUpdate : LoadUnitTypePatchActions,
            req.body,
          ),
          opt(req.locale),
        );
        return { containerType: toContainerTypeMessage(kind, t) };
      },
      async putContainerTypeIcon(req, hctx) {
        const kind = kindOf(req.kind);
        const r = await types.putContainerTypeIcon(
          deps,
          requestContext(hctx),
          kind,
          req.id,
          { name: req.fileName, content: req.contentBase64 },
          opt(req.locale),
        );
        return { containerType: toContainerTypeMessage(kind, r.type), created: r.created };
      },
      async getIcon(req, hctx) {
        const icon = await types.getIcon(deps, requestContext(hctx), req.id);
        return { mediaType: icon.media_type, content: icon.content, fileName: icon.file_name };
      },
    });
}
