/**
 * The notification center: configuration (tenant and per facility), the notification search and
 * the live stream (Server-Sent Events, ours). Thin handlers over NotificationsService.
 */
import type { Permission } from "@fop/contracts/permissions";
import { errorResponses, plainJson } from "@fop/contracts/rest/common";
import {
  ChannelParams,
  DeleteChannelQuery,
  FacilityChannelParams,
  FacilityParams,
  NotificationCenterConfig,
  NotificationCenterConfigAction,
  NotificationCenterConfigForUpsert,
  NotificationPaginatedResult,
  NotificationSearchPayload,
} from "@fop/contracts/rest/notifications";
import { callOptions } from "@fop/kit/rpc/client";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendDocument, sendDocumentPage } from "../documents.ts";
import { toPageInfo, toSearchRequest, withTotal } from "../search.ts";

const tags = ["Notification Center Configuration (Core)"];
const urn = [{ param: "facilityRef", entity: "facility", field: "tenantFacilityId" }] as const;
/** The facility a facility-scoped route names; "" on the tenant's (their params have none). */
const facilityOf = ({ params }: { params: unknown }) =>
  params && typeof params === "object" && "facilityRef" in params ? String(params.facilityRef) : "";
const LIMITS =
  "A configuration holds at most 100 channels; a channel at most 50 unique events (of the 10 kinds the spec names); an EMAIL channel at most 200 receivers, each address once.";

export function notificationRoutes(app: RouteApp, { clients }: RouteDeps): void {
  const notifications = clients.notifications;
  // Open live streams end when the gateway closes (else close would wait on them until killed);
  // clients reconnect to another instance.
  const streams = new Set<AbortController>();
  app.addHook("preClose", async () => {
    for (const s of streams) s.abort();
  });

  /** The four configuration routes, for the tenant (`base` "") or a facility. */
  const configRoutes = (path: string, scope: "tenant" | "facility") => {
    const facility = scope === "facility";
    const params = facility ? { params: FacilityParams } : {};
    const config = (permission: Permission) => ({
      permissions: [permission],
      lifecycle: "beta" as const,
      ...(facility ? { urn } : {}),
    });
    const extra404 = facility ? " An unknown facility is a 404." : "";

    app.get(
      path,
      {
        ...plainJson,
        schema: {
          operationId: facility ? "getNotificationCenterFacilityConfig" : "getNotificationCenterConfig",
          summary: facility ? "Get facility notification config" : "Get notification config",
          description: `404 until the first PUT.${extra404}`,
          tags,
          ...params,
          response: { 200: NotificationCenterConfig, ...errorResponses(401, 403, 404) },
        },
        config: config("NOTIFICATION_CENTER_CONFIG_READ"),
      },
      async (req, reply) => {
        const res = await notifications.getNotificationConfig(
          { facilityRef: facilityOf(req) },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.documentJson);
      },
    );

    app.put(
      path,
      {
        ...plainJson,
        schema: {
          operationId: facility ? "upsertNotificationCenterFacilityConfig" : "upsertNotificationCenterConfig",
          summary: facility ? "Update facility notification config" : "Update notification config",
          description: `Without version it creates the configuration (201); afterwards it replaces every channel on the version the body names (200; 409 when stale). Channels get new ids. ${LIMITS}${extra404}`,
          tags,
          ...params,
          body: NotificationCenterConfigForUpsert,
          response: {
            200: NotificationCenterConfig,
            201: NotificationCenterConfig,
            ...errorResponses(400, 401, 403, 404, 409),
          },
        },
        config: config("NOTIFICATION_CENTER_CONFIG_WRITE"),
      },
      async (req, reply) => {
        const res = await notifications.putNotificationConfig(
          { facilityRef: facilityOf(req), body: req.body },
          callOptions(req.ctx),
        );
        return sendDocument(reply.code(res.created ? 201 : 200), res.documentJson);
      },
    );

    app.post(
      `${path}/actions`,
      {
        ...plainJson,
        schema: {
          operationId: facility
            ? "executeNotificationCenterFacilityConfigAction"
            : "executeNotificationCenterConfigAction",
          summary: facility ? "Call facility notification action" : "Call notification action",
          description: `ADD_CHANNEL (the channel gets an id) or UPDATE_CHANNEL (replaces the channel with that id; an unknown id is a 404), on the version the action names (409 when stale). ${LIMITS}${extra404}`,
          tags,
          ...params,
          body: NotificationCenterConfigAction,
          response: { 200: NotificationCenterConfig, ...errorResponses(400, 401, 403, 404, 409) },
        },
        config: config("NOTIFICATION_CENTER_CONFIG_WRITE"),
      },
      async (req, reply) => {
        const res = await notifications.notificationConfigAction(
          { facilityRef: facilityOf(req), action: req.body },
          callOptions(req.ctx),
        );
        return sendDocument(reply, res.documentJson);
      },
    );

    app.delete(
      `${path}/channels/:channelId`,
      {
        ...plainJson,
        schema: {
          operationId: facility
            ? "deleteNotificationCenterFacilityConfigChannel"
            : "deleteNotificationCenterConfigChannel",
          summary: facility ? "Delete facility notification channel" : "Delete notification channel",
          description: `The configuration's current version is required (409 when stale); an unknown channel is a 404.${extra404}`,
          tags,
          params: facility ? FacilityChannelParams : ChannelParams,
          querystring: DeleteChannelQuery,
          response: {
            200: { type: "null", description: "Deleted." },
            ...errorResponses(400, 401, 403, 404, 409),
          },
        },
        config: config("NOTIFICATION_CENTER_CONFIG_WRITE"),
      },
      async (req, reply) => {
        await notifications.deleteNotificationChannel(
          {
            facilityRef: facilityOf(req),
            channelId: req.params.channelId,
            version: BigInt(req.query.version),
          },
          callOptions(req.ctx),
        );
        return reply.code(200).send();
      },
    );
  };

  configRoutes("/api/configurations/notifications", "tenant");
  configRoutes("/api/facilities/:facilityRef/configurations/notifications", "facility");

  app.post(
    "/api/notifications/search",
    {
      ...plainJson,
      schema: {
        operationId: "searchNotification",
        summary: "List notifications (search)",
        description:
          "The tenant's stored CLIENT notifications (one per event and channel). Query: category, created, facilityRef, priority {label, sequence}, status, and/or; sort created or status.",
        tags,
        body: NotificationSearchPayload,
        response: { 200: NotificationPaginatedResult, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["NOTIFICATION_READ"], lifecycle: "alpha" },
    },
    async (req, reply) => {
      const res = await notifications.searchNotifications(
        { search: toSearchRequest(req.body) },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "notifications", res.notificationsJson, {
        pageInfo: toPageInfo(res.pageInfo),
        ...withTotal(res.total),
      });
    },
  );

  app.get(
    "/api/notifications/stream",
    {
      schema: {
        operationId: "streamNotifications",
        summary: "Live notifications (Server-Sent Events)",
        description:
          "Ours: a `text/event-stream` of the tenant's new CLIENT notifications as they are stored, each as `event: notification`, `id: <notification id>`, `data: <Notification JSON>`; a `: heartbeat` comment every 15 s keeps proxies from closing it. Authenticate with the bearer token header (a fetch-based SSE client; the browser's EventSource cannot send headers). At most once: after a reconnect, search for what was missed (created gte the last one seen).",
        tags,
        response: {
          200: {
            description: "The stream (Server-Sent Events)",
            content: {
              "text/event-stream": { schema: { type: "string", title: "NotificationEventStream" } },
            },
          },
          ...errorResponses(401, 403),
        },
      },
      config: { permissions: ["NOTIFICATION_READ"], lifecycle: "beta", stream: true },
    },
    async (req, reply) => streamNotifications(req, reply, clients.notificationsLive, streams),
  );
}

/** Opens the service's stream first (so a refusal is a normal error answer), then relays it as SSE. */
async function streamNotifications(
  req: FastifyRequest,
  reply: FastifyReply,
  live: RouteDeps["clients"]["notificationsLive"],
  streams: Set<AbortController>,
): Promise<void> {
  const abort = new AbortController();
  streams.add(abort);
  const it = live
    .streamNotifications({}, { ...callOptions(req.ctx), signal: abort.signal })
    [Symbol.asyncIterator]();
  try {
    await it.next(); // the service's first (empty) message: its subscription stands
  } catch (err) {
    abort.abort();
    streams.delete(abort);
    throw err;
  }
  reply.hijack();
  const raw = reply.raw;
  const headers = { ...reply.getHeaders() } as Record<string, string>;
  delete headers["content-length"];
  raw.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
    connection: "keep-alive",
  });
  raw.write("retry: 3000\n: connected\n\n");
  const close = () => abort.abort();
  req.raw.on("close", close);
  try {
    for (;;) {
      const { value, done } = await it.next();
      if (done || raw.destroyed) break;
      const bytes = value.documentJson;
      if (bytes.length === 0) {
        raw.write(": heartbeat\n\n");
        continue;
      }
      const text = Buffer.from(bytes).toString("utf8");
      const id = (JSON.parse(text) as { id?: string }).id ?? "";
      raw.write(`id: ${id}\nevent: notification\ndata: ${text}\n\n`);
    }
  } catch {
    // The client left, or the service closed the stream: end it; the client reconnects.
  } finally {
    req.raw.off("close", close);
    abort.abort();
    streams.delete(abort);
    if (!raw.destroyed) raw.end();
  }
}
