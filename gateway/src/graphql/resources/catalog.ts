/** Categories, facilities and facility groups (the catalog service). */
import { FacilityListFilters } from "@fop/contracts/facilities";
import {
  Category,
  CategoryForCreation,
  CategoryForUpdate,
  CategorySearchPayload,
} from "@fop/contracts/rest/categories";
import { Facility } from "@fop/contracts/rest/facilities";
import { FacilityGroup, FacilityGroupSearchPayload } from "@fop/contracts/rest/facilitygroups";
import { invalid, notFound } from "@fop/kit/errors";
import { idOrUrn } from "../../plugins/urn.ts";
import { parseDocument } from "../../routes/documents.ts";
import { defineConnection, listArgs, listRoot, searchArgs, searchRoot } from "../connections.ts";
import { type GqlContext, loader, need, rpc } from "../context.ts";
import { validated } from "../inputs.ts";
import type { Args, GraphModule } from "../module.ts";
import { describe } from "../sdl.ts";

const URN = {
  category: { entity: "category", field: "tenantCategoryId" },
  facility: { entity: "facility", field: "tenantFacilityId" },
  facilityGroup: { entity: "facilitygroup", field: "tenantFacilityGroupId" },
} as const;

/** The id a root field's `id` argument names (a URN resolved for the caller's tenant). */
const idOf = (c: GqlContext, raw: string, spec: { entity: string; field: string }) =>
  idOrUrn(c.req.ctx, raw, spec, "id", c.resolveUrn);

/** A facility by id through the request's batch loader (one BatchGetFacilities per level). */
export function loadFacility(c: GqlContext, id: string) {
  need(c, "FACILITY_READ");
  return loader(c, "facility", async (ids) => {
    const res = await c.clients.catalog.batchGetFacilities({ ids: [...ids] }, rpc(c));
    const byId = new Map(res.facilities.map((f) => [f.id, parseDocument(f.documentJson)]));
    return ids.map((i) => byId.get(i) ?? notFound("facility", i));
  }).load(id);
}

export const catalog: GraphModule = {
  define(t) {
    t.outputType(Category);
    t.outputType(Facility);
    t.outputType(FacilityGroup);
    const categories = defineConnection(t, "Category", "category");
    const facilities = defineConnection(t, "Facility", "facility");
    const groups = defineConnection(t, "FacilityGroup", "facility group");
    t.extend("FacilityGroup", [
      `${describe("The group's facilities (FACILITY_READ).", "")}facilities: [Facility] @semanticNonNull(levels: [0, 1])`,
    ]);
    return {
      query: [
        `"A category by id or urn:fft:category:tenantCategoryId:<value> (CATEGORY_READ)."\ncategory(id: ID!): Category @semanticNonNull`,
        `"Categories, as POST /api/categories/search (ADMIN_MODULES_READ)."\ncategories(${searchArgs(t, CategorySearchPayload, "Category")}): ${categories} @semanticNonNull`,
        `"A facility by id or urn:fft:facility:tenantFacilityId:<value> (FACILITY_READ)."\nfacility(id: ID!): Facility @semanticNonNull`,
        `"Facilities, as GET /api/facilities (FACILITY_READ); pages forward."\nfacilities(${listArgs(t, FacilityListFilters)}): ${facilities} @semanticNonNull`,
        `"A facility group by id or urn:fft:facilitygroup:tenantFacilityGroupId:<value> (FACILITY_GROUP_READ)."\nfacilityGroup(id: ID!): FacilityGroup @semanticNonNull`,
        `"Facility groups, as POST /api/facilitygroups/search (FACILITY_GROUP_READ)."\nfacilityGroups(${searchArgs(t, FacilityGroupSearchPayload, "FacilityGroup")}): ${groups} @semanticNonNull`,
      ],
      mutation: [
        `"Creates a category, as POST /api/categories (CATEGORY_WRITE)."\ncreateCategory(input: ${t.input(CategoryForCreation, "CategoryForCreation")}): Category @semanticNonNull`,
        `"Replaces a category, as PUT /api/categories/{id} (CATEGORY_WRITE); input.version must be the current one (else VERSION_CONFLICT)."\nreplaceCategory(id: ID!, input: ${t.input(CategoryForUpdate, "CategoryForUpdate")}): Category @semanticNonNull`,
        `"Deletes a category, as DELETE /api/categories/{id} (CATEGORY_WRITE); answers the deleted category."\ndeleteCategory(id: ID!, forceDeletion: Boolean = false): Category @semanticNonNull`,
      ],
    };
  },
  resolvers: {
    Query: {
      category: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "CATEGORY_READ");
        const id = await idOf(c, a.id, URN.category);
        return parseDocument((await c.clients.catalog.getCategory({ id }, rpc(c))).category?.documentJson);
      },
      categories: searchRoot("ADMIN_MODULES_READ", CategorySearchPayload, async (c, search) => {
        const res = await c.clients.catalog.searchCategories({ search }, rpc(c));
        return { nodes: res.categories.map((x) => parseDocument(x.documentJson)), ...res };
      }),
      facility: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "FACILITY_READ");
        const id = await idOf(c, a.id, URN.facility);
        return parseDocument((await c.clients.catalog.getFacility({ id }, rpc(c))).facility?.documentJson);
      },
      facilities: listRoot("FACILITY_READ", FacilityListFilters, async (c, request) => {
        const res = await c.clients.catalog.listFacilities(request, rpc(c));
        return {
          nodes: res.facilities.map((f) => parseDocument<{ id: string }>(f.documentJson)),
          total: res.total,
        };
      }),
      facilityGroup: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "FACILITY_GROUP_READ");
        const id = await idOf(c, a.id, URN.facilityGroup);
        return parseDocument(
          (await c.clients.catalog.getFacilityGroup({ id }, rpc(c))).facilityGroup?.documentJson,
        );
      },
      facilityGroups: searchRoot("FACILITY_GROUP_READ", FacilityGroupSearchPayload, async (c, search) => {
        const res = await c.clients.catalog.searchFacilityGroups({ search }, rpc(c));
        return { nodes: res.facilityGroups.map((x) => parseDocument(x.documentJson)), ...res };
      }),
    },
    Mutation: {
      createCategory: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "CATEGORY_WRITE");
        const body = validated(CategoryForCreation, a.input);
        const res = await c.clients.catalog.createCategory({ body }, rpc(c));
        return parseDocument(res.category?.documentJson);
      },
      replaceCategory: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "CATEGORY_WRITE");
        const id = await idOf(c, a.id, URN.category);
        const body = validated(CategoryForUpdate, a.input);
        if (body.id !== undefined && body.id !== id) {
          throw invalid(
            "ID_MISMATCH",
            `input.id names category ${JSON.stringify(body.id)}, id ${JSON.stringify(id)}.`,
            "input.id",
          );
        }
        const res = await c.clients.catalog.replaceCategory({ id, body }, rpc(c));
        return parseDocument(res.category?.documentJson);
      },
      deleteCategory: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "CATEGORY_WRITE");
        const id = await idOf(c, a.id, URN.category);
        const res = await c.clients.catalog.deleteCategory(
          { id, forceDeletion: a.forceDeletion ?? false },
          rpc(c),
        );
        return parseDocument(res.category?.documentJson);
      },
    },
    FacilityGroup: {
      facilities: (g: { facilityRefs?: string[] }, _: Args, c: GqlContext) =>
        Promise.all((g.facilityRefs ?? []).map((id) => loadFacility(c, id).catch((e: Error) => e))),
    },
  },
};
