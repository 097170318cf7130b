/** Reason schemas, matching the reference (AbstractReason: CancelationReason, RerouteDescription). */
import { Type } from "@sinclair/typebox";
import { closed, DateTime, ListQuery, LocaleString, opt, RequestVersion } from "./common.ts";

const ReasonText = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: "Text explaining the reason for a supported action; unique within its kind.",
});

export const ReasonForCreation = (title: string) =>
  Type.Object({ reasonLocalized: LocaleString, reason: ReasonText }, { ...closed, title });

export const ReasonForModification = (title: string) =>
  Type.Object(
    { reasonLocalized: LocaleString, reason: ReasonText, version: RequestVersion() },
    { ...closed, title },
  );

export const Reason = (title: string, action: string) =>
  Type.Object(
    {
      id: Type.String(),
      action: Type.Literal(action, { description: "The action this reason can be attached to." }),
      reason: Type.String(),
      reasonLocalized: LocaleString,
      version: Type.Integer(),
      created: opt(DateTime()),
      lastModified: opt(DateTime()),
    },
    { title },
  );

export const ReasonListQuery = Type.Object(ListQuery);
