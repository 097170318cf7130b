/** NotificationsService handlers: read the request context, call the use case, map the result. Nothing else. */
import type { ConnectRouter } from "@connectrpc/connect";
import {
  NotificationCenterConfigAction,
  NotificationCenterConfigForUpsert,
} from "@fop/contracts/rest/notifications";
import { SubscriptionForCreation } from "@fop/contracts/rest/subscriptions";
import { pageSize } from "@fop/kit/paging";
import { readBody } from "@fop/kit/rpc/body";
import { documentJson } from "@fop/kit/rpc/proto";
import { pageOut, searchParams } from "@fop/kit/rpc/search";
import { requestContext } from "@fop/kit/rpc/server";
import { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import * as config from "../usecases/config.ts";
import type { NotificationsDeps } from "../usecases/deps.ts";
import * as notifications from "../usecases/notifications.ts";
import * as subscriptions from "../usecases/subscriptions.ts";

export function notificationRoutes(deps: NotificationsDeps) {
  return (router: ConnectRouter) =>
    router.service(NotificationsService, {
      async getNotificationConfig(req, hctx) {
        const text = await config.getConfig(deps, requestContext(hctx), req.facilityRef);
        return { documentJson: Buffer.from(text, "utf8") };
      },
      async putNotificationConfig(req, hctx) {
        const r = await config.putConfiguration(
          deps,
          requestContext(hctx),
          req.facilityRef,
          readBody(NotificationCenterConfigForUpsert, req.body),
        );
        return { documentJson: documentJson(r.config), created: r.created };
      },
      async notificationConfigAction(req, hctx) {
        return {
          documentJson: documentJson(
            await config.configAction(
              deps,
              requestContext(hctx),
              req.facilityRef,
              readBody(NotificationCenterConfigAction, req.action),
            ),
          ),
        };
      },
      async deleteNotificationChannel(req, hctx) {
        await config.removeChannel(
          deps,
          requestContext(hctx),
          req.facilityRef,
          req.channelId,
          Number(req.version),
        );
        return {};
      },
      async searchNotifications(req, hctx) {
        const page = await notifications.searchNotifications(
          deps,
          requestContext(hctx),
          searchParams(req.search),
        );
        return { notificationsJson: page.rows.map((doc) => Buffer.from(doc, "utf8")), ...pageOut(page) };
      },
      async *streamNotifications(_req, hctx) {
        const ctx = requestContext(hctx);
        for await (const data of deps.live(ctx.tenant, hctx.signal)) yield { documentJson: data };
      },
      async listSubscriptions(req, hctx) {
        const r = await subscriptions.listTenantSubscriptions(deps, requestContext(hctx), pageSize(req.size));
        return { subscriptionsJson: r.docs.map(documentJson), total: BigInt(r.total) };
      },
      async createSubscription(req, hctx) {
        return {
          documentJson: documentJson(
            await subscriptions.createSubscription(
              deps,
              requestContext(hctx),
              readBody(SubscriptionForCreation, req.body),
            ),
          ),
        };
      },
      async getSubscription(req, hctx) {
        return {
          documentJson: documentJson(await subscriptions.getSubscription(deps, requestContext(hctx), req.id)),
        };
      },
      async deleteSubscription(req, hctx) {
        await subscriptions.removeSubscription(deps, requestContext(hctx), req.id);
        return {};
      },
      async listDeadLetters(req, hctx) {
        const r = await subscriptions.deadLetters(
          deps,
          requestContext(hctx),
          req.subscriptionId,
          pageSize(req.size),
        );
        return { deadLettersJson: r.rows.map(documentJson), total: BigInt(r.total) };
      },
    });
}
