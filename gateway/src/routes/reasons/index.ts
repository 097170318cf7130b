/**
 * /api/cancelationreasons and /api/reroutedescriptions (beta): the reference's AbstractReason twice,
 * one route table for both. The reference names no permission: ours are CONFIG_READ / CONFIG_WRITE.
 */

import { errorResponses, listPage, plainJson } from "@fop/contracts/rest/common";
import {
  Reason,
  ReasonForCreation,
  ReasonForModification,
  ReasonListQuery,
} from "@fop/contracts/rest/reasons";
import { callOptions } from "@fop/kit/rpc/client";
import { ReasonAction } from "@fop/proto/fop/returns/v1/returns_pb.js";
import { Type } from "@sinclair/typebox";
import type { Lifecycle } from "../../plugins/types.ts";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { parseDocument, sendDocument } from "../documents.ts";

interface Kind {
  path: string;
  param: string;
  action: ReasonAction;
  /** Reference schema names: <title>, <title>ForCreation, <title>ForModification, <title>s. */
  title: string;
  label: string;
  /** The reference's operationIds, by route below. */
  operationIds: { list: string; create: string; get: string; replace: string; delete: string };
  lifecycle: Lifecycle;
  tags: string[];
  /** The list repeats its page under this key too (RerouteDescriptions: `rerouteDescriptions`). */
  listAlias?: string;
}

const KINDS: Kind[] = [
  {
    path: "/api/cancelationreasons",
    param: "cancelationReasonId",
    action: ReasonAction.CANCELATION,
    title: "CancelationReason",
    label: "cancellation reason",
    operationIds: {
      list: "getCancelationReasons",
      create: "postCancelationReason",
      get: "getCancelationReasonById",
      replace: "putCancelationReason",
      delete: "deleteCancelationReason",
    },
    lifecycle: "GA",
    tags: ["Orders Configuration (DOMS)"],
  },
  {
    path: "/api/reroutedescriptions",
    param: "rerouteDescriptionId",
    action: ReasonAction.REROUTE,
    title: "RerouteDescription",
    label: "reroute description",
    operationIds: {
      list: "getRerouteDescriptions",
      create: "postRerouteDescription",
      get: "getRerouteDescriptionById",
      replace: "putRerouteDescription",
      delete: "deleteRerouteDescription",
    },
    lifecycle: "beta",
    tags: ["Routing Plans Configuration (DOMS)"],
    listAlias: "rerouteDescriptions",
  },
];

export function reasonRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const returns = clients.returns;
  for (const k of KINDS) {
    const read = Reason(k.title, k.action === ReasonAction.CANCELATION ? "CANCELATION" : "REROUTE");
    const params = Type.Object({ [k.param]: Type.String({ maxLength: 256 }) });
    const idOf = (req: { params: Record<string, string> }) => req.params[k.param]!;
    const list = Type.Object(
      {
        reasons: Type.Array(read),
        ...(k.listAlias ? { [k.listAlias]: Type.Array(read) } : {}),
        hasNextPage: Type.Boolean(),
        total: Type.Integer(),
      },
      { title: `${k.title}s` },
    );

    app.get(
      k.path,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.list,
          summary: `List ${k.label}s`,
          tags: k.tags,
          querystring: ReasonListQuery,
          response: { 200: list, ...errorResponses(400, 401, 403) },
        },
        config: { permissions: ["CONFIG_READ"], lifecycle: k.lifecycle },
      },
      async (req) => {
        const q = req.query;
        const res = await returns.listReasons({ action: k.action, page: listPage(q) }, callOptions(req.ctx));
        const docs = res.reasons.map((r) => parseDocument<object>(r.documentJson));
        return {
          reasons: docs,
          ...(k.listAlias ? { [k.listAlias]: docs } : {}),
          hasNextPage: res.hasNextPage,
          total: Number(res.total),
        };
      },
    );

    app.post(
      k.path,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.create,
          summary: `Create ${k.label}`,
          description: `201 with the new ${k.label}; 303 (no body, Location names it) when one with the same \`reason\` exists.`,
          tags: k.tags,
          body: ReasonForCreation(`${k.title}ForCreation`),
          response: {
            201: read,
            303: { type: "null", description: "It exists already." },
            ...errorResponses(400, 401, 403),
          },
        },
        config: { permissions: ["CONFIG_WRITE"], lifecycle: k.lifecycle },
      },
      async (req, reply) => {
        const res = await returns.createReason({ action: k.action, body: req.body }, callOptions(req.ctx));
        reply.header("location", `${publicUrl}${k.path}/${res.reason?.id}`);
        if (!res.created) return reply.code(303).send();
        return sendDocument(reply.code(201), res.reason?.documentJson);
      },
    );

    app.get(
      `${k.path}/:${k.param}`,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.get,
          summary: `Get ${k.label}`,
          tags: k.tags,
          params,
          response: { 200: read, ...errorResponses(401, 403, 404) },
        },
        config: { permissions: ["CONFIG_READ"], lifecycle: k.lifecycle },
      },
      async (req, reply) => {
        const res = await returns.getReason({ action: k.action, id: idOf(req) }, callOptions(req.ctx));
        return sendDocument(reply, res.reason?.documentJson);
      },
    );

    app.put(
      `${k.path}/:${k.param}`,
      {
        ...plainJson,
        schema: {
          operationId: k.operationIds.replace,
          summary: `Update ${k.label}`,
          description: "Names the current version (409 otherwise); a `reason` another one has is a 409.",
          tags: k.tags,
          params,
          body: ReasonForModification(`${k.title}ForModification`),
          response: { 200: read, ...errorResponses(400, 401, 403, 404, 409) },
        },
        config: { permissions: ["CONFIG_WRITE"], lifecycle: k.lifecycle },
      },
      async (req, reply) => {
        const res = await returns.updateReason(
          { action: k.action, id: idOf(req), body: req.body },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.reason?.documentJson);
      },
    );

    app.delete(
      `${k.path}/:${k.param}`,
      {
        schema: {
          operationId: k.operationIds.delete,
          summary: `Delete ${k.label}`,
          description: "200 with an empty body.",
          tags: k.tags,
          params,
          response: { 200: { type: "null", description: "Deleted." }, ...errorResponses(401, 403, 404) },
        },
        config: { permissions: ["CONFIG_WRITE"], lifecycle: k.lifecycle },
      },
      async (req, reply) => {
        await returns.deleteReason({ action: k.action, id: idOf(req) }, callOptions(req.ctx));
        return reply.code(200).send();
      },
    );
  }
}
