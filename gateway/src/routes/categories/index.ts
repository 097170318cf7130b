/** /api/categories: the route table (schemas, permissions, lifecycle) and thin handlers. */

import {
  Category,
  CategoryForCreation,
  CategoryForUpdate,
  CategoryIdParams,
  CategoryPaginatedResult,
  CategorySearchPayload,
} from "@fop/contracts/rest/categories";
import { errorResponses, ListQuery, listPage, plainJson } from "@fop/contracts/rest/common";
import { invalid } from "@fop/kit/errors";
import { callOptions } from "@fop/kit/rpc/client";
import { Type } from "@sinclair/typebox";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendCreated, sendDocument, sendDocumentArray, sendDocumentPage } from "../documents.ts";
import { toPageInfo, toSearchRequest, withTotal } from "../search.ts";

const tags = ["Categories"];
const urn = [{ param: "categoryId", entity: "category", field: "tenantCategoryId" }] as const;
export function categoryRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  app.get(
    "/api/categories",
    {
      ...plainJson,
      schema: {
        operationId: "getCategories",
        summary: "List categories",
        tags,
        querystring: Type.Object(ListQuery),
        response: { 200: Type.Array(Category, { title: "CategoryList" }), ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["CATEGORY_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const q = req.query;
      const res = await clients.catalog.listCategories({ page: listPage(q) }, callOptions(req.ctx));
      return sendDocumentArray(
        reply,
        res.categories.map((c) => c.documentJson),
      );
    },
  );

  app.post(
    "/api/categories",
    {
      ...plainJson,
      schema: {
        operationId: "createCategory",
        summary: "Create category",
        tags,
        body: CategoryForCreation,
        response: { 201: Category, ...errorResponses(400, 401, 403, 409) },
      },
      config: { permissions: ["CATEGORY_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await clients.catalog.createCategory({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/categories`, res.category);
    },
  );

  app.post(
    "/api/categories/search",
    {
      ...plainJson,
      schema: {
        operationId: "searchCategory",
        summary: "List categories (search)",
        tags,
        body: CategorySearchPayload,
        response: { 200: CategoryPaginatedResult, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["ADMIN_MODULES_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await clients.catalog.searchCategories(
        { search: toSearchRequest(req.body) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(
        reply,
        "categories",
        res.categories.map((c) => c.documentJson),
        { pageInfo: toPageInfo(res.pageInfo), ...withTotal(res.total) },
      );
    },
  );

  app.get(
    "/api/categories/:categoryId",
    {
      ...plainJson,
      schema: {
        operationId: "getCategory",
        summary: "Get category",
        tags,
        params: CategoryIdParams,
        response: { 200: Category, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CATEGORY_READ"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { categoryId } = req.params;
      const res = await clients.catalog.getCategory({ id: categoryId }, callOptions(req.ctx));
      return sendDocument(reply, res.category?.documentJson);
    },
  );

  app.put(
    "/api/categories/:categoryId",
    {
      ...plainJson,
      schema: {
        operationId: "replaceCategory",
        summary: "Replace category",
        tags,
        params: CategoryIdParams,
        body: CategoryForUpdate,
        response: { 200: Category, ...errorResponses(400, 401, 403, 404, 409) },
      },
      config: { permissions: ["CATEGORY_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { categoryId } = req.params;
      const body = req.body;
      if (body.id !== undefined && body.id !== categoryId) {
        throw invalid(
          "ID_MISMATCH",
          `The body names category ${JSON.stringify(body.id)}, the path ${JSON.stringify(categoryId)}.`,
          "/id",
        );
      }
      const res = await clients.catalog.replaceCategory({ id: categoryId, body }, callOptions(req.ctx));
      return sendDocument(reply, res.category?.documentJson);
    },
  );

  app.delete(
    "/api/categories/:categoryId",
    {
      ...plainJson,
      schema: {
        operationId: "deleteCategory",
        summary: "Delete category",
        tags,
        params: CategoryIdParams,
        querystring: Type.Object({ forceDeletion: Type.Optional(Type.Boolean()) }),
        response: { 200: Category, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["CATEGORY_WRITE"], lifecycle: "GA", urn },
    },
    async (req, reply) => {
      const { categoryId } = req.params;
      const { forceDeletion } = req.query;
      const res = await clients.catalog.deleteCategory(
        { id: categoryId, forceDeletion: forceDeletion ?? false },
        callOptions(req.ctx),
      );
      return sendDocument(reply, res.category?.documentJson);
    },
  );
}
