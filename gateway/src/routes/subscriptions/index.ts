/**
 * Webhook subscriptions (`/api/subscriptions`, as the platform's published SDK calls them), their
 * dead letters (ours) and the supported events.
 */
import { EVENT_KINDS, PLATFORM_KIND_ALIASES } from "@fop/contracts/event-kinds";
import { errorResponses, listPage, plainJson } from "@fop/contracts/rest/common";
import {
  CreatedSubscription,
  DeadLetters,
  Subscription,
  SubscriptionForCreation,
  SubscriptionIdParams,
  SubscriptionListQuery,
  Subscriptions,
  SupportedEvents,
} from "@fop/contracts/rest/subscriptions";
import { callOptions } from "@fop/kit/rpc/client";
import type { RouteApp, RouteDeps } from "../deps.ts";
import { sendDocument, sendDocumentPage } from "../documents.ts";

const tags = ["Subscriptions (Events)"];
const idOf = (req: { params: { subscriptionId: string } }) => req.params.subscriptionId;
const DELIVERY =
  "Each event of the subscribed kind is POSTed as {event, eventId, created, payload} with the Standard Webhooks headers webhook-id (the event id: the same on every retry), webhook-timestamp and webhook-signature (v1, HMAC-SHA256 with the secret shown at creation). A 2xx answer delivers it; anything else is retried with exponential backoff up to the attempt limit, then it is a dead letter (GET .../deadletters). At least once: drop repeats by webhook-id.";

/** Every subscribable event kind and what emits it (GET /api/supportedevents). */
export const SUPPORTED = {
  events: [
    ...EVENT_KINDS.map((k) => ({
      event: k.kind,
      description: `${k.entityType || "external"}: ${k.emittedBy}`,
    })),
    ...Object.entries(PLATFORM_KIND_ALIASES).map(([event, ours]) => ({
      event,
      description: `delivered for each of ${ours.join(", ")} (under this name)`,
    })),
  ],
};

export function subscriptionRoutes(app: RouteApp, { clients, publicUrl }: RouteDeps): void {
  const notifications = clients.notifications;

  app.get(
    "/api/subscriptions",
    {
      ...plainJson,
      schema: {
        operationId: "getSubscriptions",
        summary: "List subscriptions",
        tags,
        querystring: SubscriptionListQuery,
        response: { 200: Subscriptions, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["SUBSCRIPTION_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await notifications.listSubscriptions(
        { size: listPage(req.query).size },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "subscriptions", res.subscriptionsJson, { total: Number(res.total) });
    },
  );

  app.post(
    "/api/subscriptions",
    {
      ...plainJson,
      schema: {
        operationId: "createSubscription",
        summary: "Create subscription",
        description: `201 with the subscription and its signing secret (shown only here). At most 5 subscriptions per event. ${DELIVERY}`,
        tags,
        body: SubscriptionForCreation,
        response: { 201: CreatedSubscription, ...errorResponses(400, 401, 403) },
      },
      config: { permissions: ["SUBSCRIPTION_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await notifications.createSubscription({ body: req.body }, callOptions(req.ctx));
      const id = (JSON.parse(Buffer.from(res.documentJson).toString("utf8")) as { id: string }).id;
      reply.code(201).header("location", `${publicUrl}/api/subscriptions/${id}`);
      return sendDocument(reply, res.documentJson);
    },
  );

  app.get(
    "/api/subscriptions/:subscriptionId",
    {
      ...plainJson,
      schema: {
        operationId: "getSubscription",
        summary: "Get subscription",
        description: "Without its secret.",
        tags,
        params: SubscriptionIdParams,
        response: { 200: Subscription, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["SUBSCRIPTION_READ"], lifecycle: "GA" },
    },
    async (req, reply) => {
      const res = await notifications.getSubscription({ id: idOf(req) }, callOptions(req.ctx));
      return sendDocument(reply, res.documentJson);
    },
  );

  app.delete(
    "/api/subscriptions/:subscriptionId",
    {
      ...plainJson,
      schema: {
        operationId: "deleteSubscription",
        summary: "Delete subscription",
        description: "Its deliveries still pending are dropped.",
        tags,
        params: SubscriptionIdParams,
        response: { 200: { type: "null", description: "Deleted." }, ...errorResponses(401, 403, 404) },
      },
      config: { permissions: ["SUBSCRIPTION_WRITE"], lifecycle: "GA" },
    },
    async (req, reply) => {
      await notifications.deleteSubscription({ id: idOf(req) }, callOptions(req.ctx));
      return reply.code(200).send();
    },
  );

  app.get(
    "/api/subscriptions/:subscriptionId/deadletters",
    {
      ...plainJson,
      schema: {
        operationId: "getSubscriptionDeadLetters",
        summary: "List dead letters",
        description:
          "Ours: the deliveries of this subscription that ran out of attempts, newest first, with the last status or error and the body that was not delivered.",
        tags,
        params: SubscriptionIdParams,
        querystring: SubscriptionListQuery,
        response: { 200: DeadLetters, ...errorResponses(400, 401, 403, 404) },
      },
      config: { permissions: ["SUBSCRIPTION_READ"], lifecycle: "beta" },
    },
    async (req, reply) => {
      const res = await notifications.listDeadLetters(
        { subscriptionId: idOf(req), size: listPage(req.query).size },
        callOptions(req.ctx),
      );
      return sendDocumentPage(reply, "deadLetters", res.deadLettersJson, { total: Number(res.total) });
    },
  );

  app.get(
    "/api/supportedevents",
    {
      schema: {
        operationId: "getSupportedEvents",
        summary: "List supported events",
        description: "Every event kind a subscription can name, with what emits it.",
        tags,
        response: { 200: SupportedEvents, ...errorResponses(401, 403) },
      },
      config: { permissions: ["SUBSCRIPTION_READ"], lifecycle: "GA" },
    },
    async () => SUPPORTED,
  );
}
