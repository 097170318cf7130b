/** The audit log (audit service), notifications, their configuration and webhook subscriptions (notifications service). */

import { Audit, AuditSearchPayload } from "@fop/contracts/rest/audits";
import {
  Notification,
  NotificationCenterConfig,
  NotificationSearchPayload,
} from "@fop/contracts/rest/notifications";
import { DeadLetters, Subscription, SupportedEvents } from "@fop/contracts/rest/subscriptions";
import { idOrUrn } from "../../plugins/urn.ts";
import { parseDocument } from "../../routes/documents.ts";
import { SUPPORTED } from "../../routes/subscriptions/index.ts";
import { defineConnection, listConnection, listPage, searchArgs, searchRoot } from "../connections.ts";
import { type GqlContext, need, rpc } from "../context.ts";
import type { Args, GraphModule } from "../module.ts";

type Doc = Record<string, unknown> & { id: string };

export const audits: GraphModule = {
  define(t) {
    t.outputType(Audit);
    const conn = defineConnection(t, "Audit", "audit record");
    return {
      query: [
        `"Audit records, as POST /api/audits/search (AUDIT_READ)."\naudits(${searchArgs(t, AuditSearchPayload, "Audit")}): ${conn} @semanticNonNull`,
      ],
    };
  },
  resolvers: {
    Query: {
      audits: searchRoot("AUDIT_READ", AuditSearchPayload, async (c, search) => {
        const res = await c.clients.audit.searchAudits({ search }, rpc(c));
        return { nodes: res.audits.map((a) => parseDocument<{ id: string }>(a.documentJson)), ...res };
      }),
    },
  },
};

export const notifications: GraphModule = {
  define(t) {
    t.outputType(Notification);
    t.outputType(NotificationCenterConfig);
    t.outputType(Subscription);
    const conn = defineConnection(t, "Notification", "notification");
    const subs = defineConnection(t, "Subscription", "subscription");
    const deadLetter = t.outputType(DeadLetters.properties.deadLetters.items);
    const supported = t.outputType(SupportedEvents.properties.events.items);
    const letters = defineConnection(t, deadLetter, "dead letter");

    return {
      query: [
        `"Notifications, as POST /api/notifications/search (NOTIFICATION_READ)."\nnotifications(${searchArgs(t, NotificationSearchPayload, "Notification")}): ${conn} @semanticNonNull`,
        `"The notification center configuration: the tenant's, or with facility (an id or urn:fft:facility:tenantFacilityId:<value>) the facility's (NOTIFICATION_CENTER_CONFIG_READ)."\nnotificationCenterConfig(facility: ID): NotificationCenterConfig @semanticNonNull`,
        `"A webhook subscription by id (SUBSCRIPTION_READ)."\nsubscription(id: ID!): Subscription @semanticNonNull`,
        `"Webhook subscriptions, as GET /api/subscriptions (SUBSCRIPTION_READ); one page (first), oldest first."\nsubscriptions(first: Int): ${subs} @semanticNonNull`,
        `"A subscription's deliveries that failed every attempt, as GET /api/subscriptions/{id}/deadletters; one page (first) (SUBSCRIPTION_READ)."\ndeadLetters(subscriptionId: ID!, first: Int): ${letters} @semanticNonNull`,
        `"Every event kind a subscription can name, with what emits it (SUBSCRIPTION_READ)."\nsupportedEvents: [${supported}] @semanticNonNull(levels: [0, 1])`,
      ],
    };
  },
  resolvers: {
    Query: {
      notifications: searchRoot("NOTIFICATION_READ", NotificationSearchPayload, async (c, search) => {
        const res = await c.clients.notifications.searchNotifications({ search }, rpc(c));
        return { nodes: res.notificationsJson.map((d) => parseDocument(d)), ...res };
      }),
      notificationCenterConfig: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "NOTIFICATION_CENTER_CONFIG_READ");
        const spec = { entity: "facility", field: "tenantFacilityId" };
        const facilityRef = a.facility
          ? await idOrUrn(c.req.ctx, a.facility, spec, "facility", c.resolveUrn)
          : "";
        const res = await c.clients.notifications.getNotificationConfig({ facilityRef }, rpc(c));
        return parseDocument(res.documentJson);
      },
      subscription: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "SUBSCRIPTION_READ");
        return parseDocument(
          (await c.clients.notifications.getSubscription({ id: a.id }, rpc(c))).documentJson,
        );
      },
      subscriptions: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "SUBSCRIPTION_READ");
        const page = listPage(a);
        const res = await c.clients.notifications.listSubscriptions({ size: page.first }, rpc(c));
        const docs = res.subscriptionsJson.map((d) => parseDocument<Doc>(d));
        return listConnection(docs, page, res.total, Number(res.total) > docs.length);
      },
      deadLetters: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "SUBSCRIPTION_READ");
        const page = listPage(a);
        const res = await c.clients.notifications.listDeadLetters(
          { subscriptionId: a.subscriptionId, size: page.first },
          rpc(c),
        );
        const docs = res.deadLettersJson.map((d) => parseDocument<Doc>(d));
        return listConnection(docs, page, res.total, Number(res.total) > docs.length);
      },
      supportedEvents: (_: unknown, _a: Args, c: GqlContext) => {
        need(c, "SUBSCRIPTION_READ");
        return SUPPORTED.events;
      },
    },
  },
};
