/**
 * Webhook subscriptions as the platform's published TypeScript SDK shapes them (SubscriptionForCreation,
 * Subscription, Subscriptions); the reference subset does not describe them.
 */

import { Type } from "@sinclair/typebox";
import { SUBSCRIBABLE_EVENTS } from "../event-kinds.ts";
import { DateTime, OneOf, opt, PageSizeQuery, StringEnum } from "./common.ts";

const CallbackHeader = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 256 }), value: Type.String({ maxLength: 4096 }) },
  { title: "CallbackHeader" },
);
const Headers = Type.Array(CallbackHeader, {
  maxItems: 20,
  description: "Sent with every delivery (at most 20)",
});
const CallbackUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    "https (plain http only where WEBHOOK_ALLOW_HTTP is on); never a private, loopback or link-local address unless WEBHOOK_ALLOWED_CIDRS allows it",
});
const Event = StringEnum(SUBSCRIBABLE_EVENTS, {
  description: "Name of the event (GET /api/supportedevents)",
});

const WebhookTarget = Type.Object(
  { type: Type.Literal("WEBHOOK"), callbackUrl: CallbackUrl, headers: opt(Headers) },
  { title: "SubscriptionTargetWebhook" },
);
/** A target told apart by `type`: another type (the SDK's Service Bus target) is refused as such. */
const Target = OneOf("type", [WebhookTarget], { title: "SubscriptionTarget" });

export const SubscriptionForCreation = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256, description: "Freely selectable" }),
    event: Event,
    target: opt(Target),
    callbackUrl: opt({ ...CallbackUrl, deprecated: true, description: "Deprecated: use target" }),
    headers: opt({ ...Headers, deprecated: true, description: "Deprecated: use target" }),
  },
  { title: "SubscriptionForCreation" },
);

const SubscriptionFields = {
  id: Type.String(),
  name: Type.String(),
  event: Type.String(),
  target: WebhookTarget,
  callbackUrl: opt(Type.String({ deprecated: true })),
  headers: opt(Type.Array(CallbackHeader, { deprecated: true })),
  created: DateTime("When the subscription was created"),
};

export const Subscription = Type.Object(SubscriptionFields, { title: "Subscription" });

export const CreatedSubscription = Type.Object(
  {
    ...SubscriptionFields,
    secret: Type.String({
      description:
        "The signing secret (Standard Webhooks, whsec_...): shown only in this answer. Verify each delivery's webhook-signature with it.",
    }),
  },
  { title: "CreatedSubscription", description: "A Subscription with its secret" },
);

export const Subscriptions = Type.Object(
  { subscriptions: Type.Array(Subscription), total: Type.Number() },
  { title: "Subscriptions" },
);

export const SubscriptionListQuery = Type.Object({
  size: PageSizeQuery(),
});
export const SubscriptionIdParams = Type.Object({ subscriptionId: Type.String({ maxLength: 256 }) });

export const DeadLetters = Type.Object(
  {
    deadLetters: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          eventId: Type.String(),
          event: Type.String(),
          callbackUrl: Type.String(),
          attempts: Type.Number(),
          lastStatus: Type.Union([Type.Number(), Type.Null()]),
          lastError: Type.Union([Type.String(), Type.Null()]),
          created: DateTime(),
          failedAt: DateTime(),
          payload: Type.Object(
            {},
            { additionalProperties: true, description: "The body that was not delivered" },
          ),
        },
        { title: "DeadLetter" },
      ),
    ),
    total: Type.Number(),
  },
  { title: "DeadLetters" },
);

export const SupportedEvents = Type.Object(
  {
    events: Type.Array(
      Type.Object({ event: Type.String(), description: Type.String() }, { title: "SupportedEvent" }),
    ),
  },
  { title: "SupportedEvents" },
);
