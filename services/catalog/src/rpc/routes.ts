/**
 * CatalogService handlers: read the request context, call the use case, map the result. Nothing else.
 */

import type { JsonObject } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { FacilityGroupListFilters, FacilityListFilters } from "@fop/contracts/facilities";
import { CategoryForCreation, CategoryForUpdate } from "@fop/contracts/rest/categories";
import { FacilityForCreation, FacilityForReplacement, FacilityPatch } from "@fop/contracts/rest/facilities";
import {
  FacilityGroupActionsParameter,
  FacilityGroupForCreation,
  FacilityGroupForUpdate,
} from "@fop/contracts/rest/facilitygroups";
import { invalid } from "@fop/kit/errors";
import { readBody } from "@fop/kit/rpc/body";
import { listCall } from "@fop/kit/rpc/filters";
import { refuseUnknownFields } from "@fop/kit/rpc/proto";
import { listPage, pageOut, searchParams } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { CategoryInput } from "../domain/category.ts";
import type { FacilityGroup, FacilityGroupInput, GroupAction } from "../domain/facility-group.ts";
import * as categories from "../usecases/categories.ts";
import type { CatalogDeps } from "../usecases/deps.ts";
import * as facilities from "../usecases/facilities.ts";
import * as groups from "../usecases/facility-groups.ts";
import { toCategoryMessage } from "./category.mapper.ts";
import { facilityChange, facilityInput, toFacilityMessage } from "./facility.mapper.ts";
import { toFacilityGroupMessage } from "./facility-group.mapper.ts";

/** A CategoryForCreation/-Update body as the domain takes it (the gateway checked its shape). */
const categoryInput = (b: JsonObject): CategoryInput => ({
  tenantCategoryId: b.tenantCategoryId as string | undefined,
  nameLocalized: (b.nameLocalized ?? {}) as Record<string, string>,
  customAttributes: (b.customAttributes ?? null) as JsonObject | null,
});

/** A FacilityGroupForCreation/-Update body as the domain takes it (the gateway checked its shape). */
const groupInput = (b: JsonObject | undefined): FacilityGroupInput => ({
  tenantFacilityGroupId: b?.tenantFacilityGroupId as string | undefined,
  nameLocalized: b?.nameLocalized as Record<string, string> | undefined,
  facilityRefs: b?.facilityRefs as string[] | undefined,
  customAttributes: b?.customAttributes as JsonObject | null | undefined,
});

export function catalogRoutes(deps: CatalogDeps) {
  const groupOut = (g: FacilityGroup) => toFacilityGroupMessage(g, deps.defaultLocale);
  return (router: ConnectRouter) =>
    router.service(CatalogService, {
      async listCategories(req, hctx) {
        const { size, startAfterId } = listPage(req.page);
        const list = await categories.listCategories(deps, requestContext(hctx), size, startAfterId);
        return { categories: list.map(toCategoryMessage) };
      },
      async createCategory(req, hctx) {
        refuseUnknownFields(req, "a category's fields are its `body` Struct (see the proto).");
        const c = await categories.createCategory(
          deps,
          requestContext(hctx),
          categoryInput(readBody(CategoryForCreation, req.body)),
        );
        return { category: toCategoryMessage(c) };
      },
      async getCategory(req, hctx) {
        return {
          category: toCategoryMessage(await categories.getCategory(deps, requestContext(hctx), req.id)),
        };
      },
      async replaceCategory(req, hctx) {
        refuseUnknownFields(req, "a category's fields and version are its `body` Struct (see the proto).");
        const body = readBody(CategoryForUpdate, req.body);
        const c = await categories.replaceCategory(
          deps,
          requestContext(hctx),
          req.id,
          Number(body.version),
          categoryInput(body),
        );
        return { category: toCategoryMessage(c) };
      },
      async deleteCategory(req, hctx) {
        return {
          category: toCategoryMessage(await categories.deleteCategory(deps, requestContext(hctx), req.id)),
        };
      },
      async searchCategories(req, hctx) {
        const result = await categories.searchCategories(
          deps,
          requestContext(hctx),
          searchParams(req.search),
        );
        return {
          categories: result.rows.map(toCategoryMessage),
          ...pageOut(result),
        };
      },

      async listFacilities(req, hctx) {
        const result = await facilities.listFacilities(deps, ...listCall(hctx, FacilityListFilters, req));
        return { facilities: result.facilities.map(toFacilityMessage), total: BigInt(result.total) };
      },
      async createFacility(req, hctx) {
        refuseUnknownFields(req, "a facility's fields are its `body` Struct (see the proto).");
        const f = await facilities.createFacility(
          deps,
          requestContext(hctx),
          facilityInput(readBody(FacilityForCreation, req.body)),
        );
        return { facility: toFacilityMessage(f) };
      },
      async getFacility(req, hctx) {
        return {
          facility: toFacilityMessage(await facilities.getFacility(deps, requestContext(hctx), req.id)),
        };
      },
      async batchGetFacilities(req, hctx) {
        const list = await facilities.batchGetFacilities(deps, requestContext(hctx), req.ids);
        return { facilities: list.map(toFacilityMessage) };
      },
      async modifyFacility(req, hctx) {
        refuseUnknownFields(req, "a facility's changes and version are its `body` Struct (see the proto).");
        const { version, change } = facilityChange(readBody(FacilityPatch, req.body));
        const f = await facilities.modifyFacility(deps, requestContext(hctx), req.id, version, change);
        return { facility: toFacilityMessage(f) };
      },
      async replaceFacility(req, hctx) {
        refuseUnknownFields(req, "a facility's fields and version are its `body` Struct (see the proto).");
        const { version, ...fields } = readBody(FacilityForReplacement, req.body);
        const f = await facilities.replaceFacility(
          deps,
          requestContext(hctx),
          req.id,
          Number(version),
          facilityInput(fields),
        );
        return { facility: toFacilityMessage(f) };
      },
      async deleteFacility(req, hctx) {
        await facilities.deleteFacility(deps, requestContext(hctx), req.id);
        return {};
      },

      async listFacilityGroups(req, hctx) {
        const r = await groups.listFacilityGroups(deps, ...listCall(hctx, FacilityGroupListFilters, req));
        return { facilityGroups: r.groups.map(groupOut), total: BigInt(r.total) };
      },
      async createFacilityGroup(req, hctx) {
        const body = readBody(FacilityGroupForCreation, req.body);
        const g = await groups.createFacilityGroup(deps, requestContext(hctx), groupInput(body));
        return { facilityGroup: groupOut(g) };
      },
      async getFacilityGroup(req, hctx) {
        return { facilityGroup: groupOut(await groups.getFacilityGroup(deps, requestContext(hctx), req.id)) };
      },
      async updateFacilityGroup(req, hctx) {
        const body = readBody(FacilityGroupForUpdate, req.body);
        const g = await groups.replaceFacilityGroup(deps, requestContext(hctx), req.id, {
          ...groupInput(body),
          version: body.version,
        });
        return { facilityGroup: groupOut(g) };
      },
      async deleteFacilityGroup(req, hctx) {
        await groups.deleteFacilityGroup(deps, requestContext(hctx), req.id);
        return {};
      },
      async facilityGroupAction(req, hctx) {
        const g = await groups.facilityGroupAction(
          deps,
          requestContext(hctx),
          req.id,
          readBody(FacilityGroupActionsParameter, req.action) as unknown as GroupAction,
        );
        return { facilityGroup: groupOut(g) };
      },
      async searchFacilityGroups(req, hctx) {
        const result = await groups.searchFacilityGroups(
          deps,
          requestContext(hctx),
          searchParams(req.search),
        );
        return {
          facilityGroups: result.rows.map(groupOut),
          ...pageOut(result),
        };
      },

      async lookupId(req, hctx) {
        const ctx = requestContext(hctx);
        if (req.entity === "category" && req.field === "tenantCategoryId") {
          return { id: await categories.lookupCategoryId(deps, ctx, req.value) };
        }
        if (req.entity === "facility" && req.field === "tenantFacilityId") {
          return { id: await facilities.lookupFacilityId(deps, ctx, req.value) };
        }
        if (req.entity === "facilitygroup" && req.field === "tenantFacilityGroupId") {
          return { id: await groups.lookupFacilityGroupId(deps, ctx, req.value) };
        }
        throw invalid("UNKNOWN_URN", `The catalog resolves no ${req.entity}:${req.field} URNs.`);
      },
    });
}
