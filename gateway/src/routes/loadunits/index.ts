/**
 * /api/loadunits, /api/stacks, /api/operativecontainertypes, /api/loadunittypes and the icons they
 * point at: the route table (schemas, permissions, lifecycle) and thin handlers.
 */

import {
  LOAD_UNIT_STATUSES,
  LoadUnitListFilters,
  LoadUnitTypeListFilters,
  OperativeContainerTypeListFilters,
  StackListFilters,
} from "@fop/contracts/loadunits";
import { errorResponses, listFilters, listPage, plainJson } from "@fop/contracts/rest/common";
import {
  BulkDeleteQuery,
  IconIdParams,
  LOAD_UNIT_TYPE_PAGE,
  LoadUnit,
  LoadUnitActionsParameter,
  LoadUnitForPatch,
  LoadUnitIdParams,
  LoadUnitListQuery,
  LoadUnitPatch,
  LoadUnitPatchActions,
  LoadUnits,
  LoadUnitsForCreation,
  LoadUnitType,
  LoadUnitTypeForCreation,
  LoadUnitTypeIdParams,
  LoadUnitTypeListQuery,
  LoadUnitTypePatchActions,
  LocaleQuery,
  NamedFile,
  OperativeContainerType,
  OperativeContainerTypeForCreation,
  OperativeContainerTypeForUpdate,
  OperativeContainerTypeIdParams,
  OperativeContainerTypeListQuery,
  OperativeContainerTypesResponse,
  Stack,
  StackForCreation,
  StackIdParams,
  StackListQuery,
  StackResponse,
} from "@fop/contracts/rest/loadunits";
import { AppError, invalid } from "@fop/kit/errors";
import { LIST_PAGE } from "@fop/kit/paging";
import { callOptions } from "@fop/kit/rpc/client";
import { type AjvError, describeValidation } from "@fop/kit/schemas/describe";
import { bodyValidator } from "@fop/kit/schemas/validators";
import { ContainerTypeKind } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { FastifyReply } from "fastify";
import { localeOf, type RouteApp, type RouteDeps } from "../deps.ts";
import { sendCreated, sendDocument, sendDocumentArray, sendDocumentPage } from "../documents.ts";

const tags = ["Picking (Operations)"];
const STATUSES: ReadonlySet<string> = new Set(LOAD_UNIT_STATUSES);

/**
 * The `statuses` parameter: repeated (`?statuses=AVAILABLE&statuses=OBSOLETE`), comma-joined, or
 * bracketed as the reference's example writes it (`[AVAILABLE]`). Given but empty (`?statuses=`,
 * `?statuses=[]`): every status. Not given: undefined (the service then lists AVAILABLE only).
 */
export function parseStatuses(values: string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const out = values
    .flatMap((v) => v.replace(/^\[|\]$/g, "").split(","))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of out) {
    if (!STATUSES.has(s))
      throw invalid(
        "INVALID_STATUS",
        `statuses: ${JSON.stringify(s)} is not AVAILABLE or OBSOLETE.`,
        "statuses",
      );
  }
  return [...new Set(out)];
}

/**
 * The 400 for a PATCH body that is neither of the reference's forms: the first problem of the form
 * it is meant as (LoadUnitPatchActions when it has `actions`, else a whole LoadUnit), naming the field.
 */
export function patchBodyError(body: unknown): AppError {
  const asActions = typeof body === "object" && body !== null && "actions" in body;
  const validate = bodyValidator(asActions ? LoadUnitPatchActions : LoadUnitForPatch);
  const first = validate(structuredClone(body)) ? undefined : (validate.errors?.[0] as AjvError | undefined);
  // A body with `actions` can only be the first form: its problem reads as any other body's. One
  // without is read as a whole LoadUnit, which the description says (a client may have meant actions).
  const reading = asActions
    ? ""
    : " The body is LoadUnitPatchActions {version, actions} or a whole LoadUnit; this one was read as a whole LoadUnit.";
  return new AppError("invalid", {
    code: "VALIDATION_FAILED",
    summary: "Invalid input.",
    description: `${first ? describeValidation("body", first) : "body is invalid."}${reading}`,
  });
}

const docs = (list: { documentJson: Uint8Array }[]) => list.map((x) => x.documentJson);

export function loadUnitRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const lu = clients.loadunits;

  app.get(
    "/api/loadunits",
    {
      ...plainJson,
      schema: {
        operationId: "getAllLoadUnits",
        summary: "List load units",
        tags,
        querystring: LoadUnitListQuery,
        response: { 200: LoadUnits, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["LOADUNIT_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const q = req.query;
      const res = await lu.listLoadUnits(
        {
          page: listPage(q),
          filters: listFilters(LoadUnitListFilters, { ...q, statuses: parseStatuses(q.statuses) }),
          locale: q.locale ?? "",
        },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "loadUnits", docs(res.loadUnits), { total: Number(res.total) });
    },
  );

  app.post(
    "/api/loadunits",
    {
      ...plainJson,
      schema: {
        operationId: "addLoadUnit",
        summary: "Create load units",
        tags,
        body: LoadUnitsForCreation,
        response: {
          201: { type: "array", items: LoadUnit, title: "LoadUnitList" },
          ...errorResponses(400, 401, 403),
        },
      },
      config: { permissions: ["LOADUNIT_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const body = req.body;
      const res = await lu.createLoadUnits({ loadUnits: body.loadUnits }, callOptions(req.ctx));
      return sendDocumentArray(reply.code(201), docs(res.loadUnits));
    },
  );

  app.delete(
    "/api/loadunits",
    {
      ...plainJson,
      schema: {
        operationId: "deleteLoadUnits",
        summary: "Soft delete load units",
        description:
          "Sets the named load units OBSOLETE, all or none. 400: neither pickJobRef nor id. 404: the pick job or an id is unknown. 422: an id names a load unit of another pick job than pickJobRef, or one that is OBSOLETE already. Only pickJobRef: every AVAILABLE load unit of that job.",
        tags,
        querystring: BulkDeleteQuery,
        response: { 200: LoadUnits, ...errorResponses(400, 401, 403, 404, 422) },
      },
      config: { permissions: ["LOADUNIT_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const q = req.query;
      const res = await lu.deleteLoadUnits(
        { pickJobRef: q.pickJobRef ?? "", ids: (q.id ?? []).flatMap((v) => v.split(",")).filter(Boolean) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "loadUnits", docs(res.loadUnits), { total: Number(res.total) });
    },
  );

  app.get(
    "/api/loadunits/:loadUnitId",
    {
      ...plainJson,
      schema: {
        operationId: "getLoadUnitByID",
        summary: "Get load unit",
        tags,
        params: LoadUnitIdParams,
        querystring: LocaleQuery,
        response: { 200: LoadUnit, ...errorResponses(400, 401, 403, 404) },
      },
      config: { permissions: ["LOADUNIT_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { loadUnitId } = req.params;
      const { locale } = req.query;
      const res = await lu.getLoadUnit({ id: loadUnitId, locale: locale ?? "" }, callOptions(req.ctx));
      return sendDocument(reply, res.loadUnit?.documentJson);
    },
  );

  app.delete(
    "/api/loadunits/:loadUnitId",
    {
      ...plainJson,
      schema: {
        operationId: "deleteLoadUnit",
        summary: "Soft delete a load unit",
        tags,
        params: LoadUnitIdParams,
        response: { 200: LoadUnit, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["LOADUNIT_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const { loadUnitId } = req.params;
      const res = await lu.deleteLoadUnit({ id: loadUnitId }, callOptions(req.ctx));
      return sendDocument(reply, res.loadUnit?.documentJson);
    },
  );

  app.patch(
    "/api/loadunits/:loadUnitId",
    {
      ...plainJson,
      schema: {
        operationId: "patchLoadUnitByID",
        summary: "Update load unit (deprecated: use POST /api/loadunits/{loadUnitId}/actions)",
        tags,
        params: LoadUnitIdParams,
        body: LoadUnitPatch,
        response: { 200: LoadUnit, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: {
        permissions: ["LOADUNIT_WRITE"],
        lifecycle: "deprecated",
        replacement: "/api/loadunits/{loadUnitId}/actions",
      },
      // The anyOf's own error would name no field: patchBodyError names the first of the meant form.
      attachValidation: true,
    },
    async (req, reply) => {
      const failed = req.validationError;
      if (failed) throw failed.validationContext === "body" ? patchBodyError(req.body) : failed;
      const { loadUnitId } = req.params;
      const res = await lu.patchLoadUnit({ id: loadUnitId, body: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.loadUnit?.documentJson);
    },
  );

  app.post(
    "/api/loadunits/:loadUnitId/actions",
    {
      ...plainJson,
      schema: {
        operationId: "loadUnitActions",
        summary: "Call load unit action",
        tags,
        params: LoadUnitIdParams,
        body: LoadUnitActionsParameter,
        response: { 200: LoadUnit, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
      config: { permissions: ["LOADUNIT_WRITE"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const { loadUnitId } = req.params;
      const res = await lu.loadUnitAction({ id: loadUnitId, action: req.body }, callOptions(req.ctx));
      return sendDocument(reply, res.loadUnit?.documentJson);
    },
  );

  app.get(
    "/api/loadunits/:loadUnitId/stack",
    {
      ...plainJson,
      schema: {
        operationId: "getStackForLoadUnit",
        summary: "Get load unit stack",
        tags: ["Stacks (Operations)"],
        params: LoadUnitIdParams,
        response: { 200: Stack, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["LOADUNIT_READ", "STACKS_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const { loadUnitId } = req.params;
      const res = await lu.getLoadUnitStack({ id: loadUnitId }, callOptions(req.ctx));
      return sendDocument(reply, res.stack?.documentJson);
    },
  );

  // --- stacks ------------------------------------------------------------------------------------
  const stackTags = ["Stacks (Operations)"];
  app.get(
    "/api/stacks",
    {
      ...plainJson,
      schema: {
        operationId: "getStacks",
        summary: "Get all Stacks respecting the given filter",
        tags: stackTags,
        querystring: StackListQuery,
        response: { 200: StackResponse, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["STACKS_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await lu.listStacks(
        { page: listPage(req.query), filters: listFilters(StackListFilters, req.query) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "stacks", docs(res.stacks), { total: Number(res.total) });
    },
  );
  app.post(
    "/api/stacks",
    {
      ...plainJson,
      schema: {
        operationId: "createStack",
        summary: "Create stack",
        tags: stackTags,
        body: StackForCreation,
        response: { 201: Stack, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["STACKS_WRITE"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await lu.createStack({ body: req.body }, callOptions(req.ctx));
      return sendCreated(reply, `${publicUrl}/api/stacks`, res.stack);
    },
  );
  app.get(
    "/api/stacks/:stackId",
    {
      ...plainJson,
      schema: {
        operationId: "getStackById",
        summary: "Get Stack respecting the given id",
        tags: stackTags,
        params: StackIdParams,
        response: { 200: Stack, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["STACKS_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const { stackId } = req.params;
      return sendDocument(
        reply,
        (await lu.getStack({ id: stackId }, callOptions(req.ctx))).stack?.documentJson,
      );
    },
  );

  // --- operative container types and (deprecated) load unit types ------------------------------
  const kinds = [
    {
      kind: ContainerTypeKind.OPERATIVE,
      base: "/api/operativecontainertypes",
      param: "operativeContainerTypeId",
      params: OperativeContainerTypeIdParams,
      name: "operative container type",
      /** The reference's operationIds, by route below. */
      operationIds: {
        list: "getOperativeContainerTypes",
        create: "createOperativeContainerType",
        get: "getOperativeContainerTypeById",
        update: "updateOperativeContainerTypeById",
        icon: "uploadOperativeContainerTypeIcon",
      },
      tags: ["Operative Container (Operations)"],
      read: "CONFIG_READ" as const,
      write: "CONFIG_WRITE" as const,
      lifecycle: { lifecycle: "GA" } as const,
      entity: OperativeContainerType,
      creation: OperativeContainerTypeForCreation,
      update: OperativeContainerTypeForUpdate,
      listQuery: OperativeContainerTypeListQuery,
      filters: OperativeContainerTypeListFilters,
      pageLimits: LIST_PAGE,
      listBody: OperativeContainerTypesResponse,
      /** OCT answers a list in an envelope; load unit types as a bare array. */
      sendList: (reply: FastifyReply, list: Uint8Array[], total: number) =>
        sendDocumentPage(reply, "operativeContainerTypes", list, { total }),
    },
    {
      kind: ContainerTypeKind.LOAD_UNIT_TYPE,
      base: "/api/loadunittypes",
      param: "loadUnitTypeId",
      params: LoadUnitTypeIdParams,
      name: "load unit type",
      operationIds: {
        list: "getLoadUnitTypes",
        create: "createLoadUnitTypes",
        get: "getLoadUnitTypeByID",
        update: "updateLoadUnitType",
        icon: "uploadLoadUnitTypeIcon",
      },
      tags,
      read: "LOADUNITTYPE_READ" as const,
      write: "LOADUNITTYPE_WRITE" as const,
      lifecycle: { lifecycle: "deprecated", replacement: "/api/operativecontainertypes" } as const,
      entity: LoadUnitType,
      creation: LoadUnitTypeForCreation,
      update: LoadUnitTypePatchActions,
      listQuery: LoadUnitTypeListQuery,
      filters: LoadUnitTypeListFilters,
      pageLimits: LOAD_UNIT_TYPE_PAGE,
      listBody: { type: "array", items: LoadUnitType, title: "LoadUnitTypeList" },
      sendList: (reply: FastifyReply, list: Uint8Array[]) => sendDocumentArray(reply, list),
    },
  ];
  for (const k of kinds) {
    const id = (req: { params: Record<string, string> }) => req.params[k.param]!;
    const localeQuery = k.kind === ContainerTypeKind.LOAD_UNIT_TYPE ? { querystring: LocaleQuery } : {};
    app.get(
      k.base,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.list,
          summary: `List ${k.name}s`,
          tags: k.tags,
          querystring: k.listQuery,
          response: { 200: k.listBody, ...errorResponses(400, 401, 403) },
        },
        config: { permissions: [k.read], ...k.lifecycle },
      },
      async (req, reply) => {
        const q: { size?: number; startAfterId?: string; locale?: string } = req.query;
        const res = await lu.listContainerTypes(
          {
            kind: k.kind,
            page: listPage(q, k.pageLimits),
            filters: listFilters(k.filters, req.query),
            locale: q.locale ?? "",
          },
          callOptions(req.ctx),
        );
        return k.sendList(reply, docs(res.containerTypes), Number(res.total));
      },
    );
    app.post(
      k.base,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.create,
          summary: `Create ${k.name}`,
          tags: k.tags,
          ...localeQuery,
          body: k.creation,
          response: { 201: k.entity, ...errorResponses(400, 401, 403) },
        },
        config: { permissions: [k.write], ...k.lifecycle },
      },
      async (req, reply) => {
        const res = await lu.createContainerType(
          { kind: k.kind, body: req.body, locale: localeOf(req) },
          callOptions(req.ctx),
        );
        return sendCreated(reply, `${publicUrl}${k.base}`, res.containerType);
      },
    );
    app.get(
      `${k.base}/:${k.param}`,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.get,
          summary: `Get ${k.name}`,
          tags: k.tags,
          params: k.params,
          querystring: LocaleQuery,
          response: { 200: k.entity, ...errorResponses(400, 401, 403, 404) },
        },
        config: { permissions: [k.read], ...k.lifecycle },
      },
      async (req, reply) => {
        const res = await lu.getContainerType(
          { kind: k.kind, id: id(req), locale: localeOf(req) },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.containerType?.documentJson);
      },
    );
    app.patch(
      `${k.base}/:${k.param}`,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.update,
          summary: `Update ${k.name}`,
          tags: k.tags,
          params: k.params,
          ...localeQuery,
          body: k.update,
          response: { 200: k.entity, ...errorResponses(400, 401, 403, 404, 409) },
        },
        config: { permissions: [k.write], ...k.lifecycle },
      },
      async (req, reply) => {
        const res = await lu.updateContainerType(
          { kind: k.kind, id: id(req), body: req.body, locale: localeOf(req) },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.containerType?.documentJson);
      },
    );
    app.put(
      `${k.base}/:${k.param}/icon`,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.icon,
          summary: `Upload or replace the ${k.name}'s icon`,
          tags: k.tags,
          params: k.params,
          querystring: LocaleQuery,
          body: NamedFile,
          response: { 200: k.entity, 201: k.entity, ...errorResponses(400, 401, 403, 404) },
        },
        config: { permissions: [k.write], ...k.lifecycle },
      },
      async (req, reply) => {
        const file = req.body;
        const res = await lu.putContainerTypeIcon(
          {
            kind: k.kind,
            id: id(req),
            fileName: file.name,
            contentBase64: file.content,
            locale: localeOf(req),
          },
          callOptions(req.ctx),
        );
        return sendDocument(reply.code(res.created ? 201 : 200), res.containerType?.documentJson);
      },
    );
  }

  app.get(
    "/api/icons/:iconId",
    {
      schema: {
        operationId: "getIcon",
        summary:
          "Get an uploaded icon (the target of an operative container type's or load unit type's iconUrl)",
        tags: ["Operative Container (Operations)"],
        params: IconIdParams,
        response: {
          200: {
            description: "The icon",
            content: { "image/*": { schema: { type: "string", format: "binary", title: "IconImage" } } },
          },
          ...errorResponses(401, 403, 404),
        },
      },
      config: { permissions: ["CONFIG_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const { iconId } = req.params;
      const res = await lu.getIcon({ id: iconId }, callOptions(req.ctx));
      return reply
        .type(res.mediaType)
        .header("content-disposition", `inline; filename="${res.fileName.replace(/["\\\r\n]/g, "_")}"`)
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .send(Buffer.from(res.content));
    },
  );
}
