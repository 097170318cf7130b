/**
 * Handover configuration schemas: the reference's AvailableRefusedReason (read by GET
 * /api/configurations/handover/refusereasons) and our configuration document that holds them.
 */
import { Type } from "@sinclair/typebox";
import { closed, DateTime, opt, RequestVersion } from "./common.ts";

const RefusedReasonLocalized = Type.Record(
  Type.String({ maxLength: 64 }),
  Type.String({ minLength: 1, maxLength: 1024 }),
  {
    minProperties: 1,
    description:
      'Locale code -> translated text, e.g. {"en_US": "Broken item", "de_DE": "Artikel beschädigt"}',
  },
);

/** AvailableRefusedReason: the localized text, whether it may be chosen, the resolved text. */
export const AvailableRefusedReason = Type.Object(
  {
    refusedReasonLocalized: RefusedReasonLocalized,
    active: Type.Boolean(),
    refusedReason: opt(Type.String({ description: "The text of the first locale (set by the platform)" })),
  },
  { title: "AvailableRefusedReason", ...closed },
);

export const AvailableRefusedReasons = Type.Array(AvailableRefusedReason, {
  title: "AvailableRefusedReasons",
});

/** PUT /api/configurations/handover (ours): the refuse reasons, on the version the body names. */
export const HandoverConfigurationForUpsert = Type.Object(
  {
    version: RequestVersion({ description: "The current version (not checked when none exists yet)." }),
    refusedReasons: Type.Array(AvailableRefusedReason, { maxItems: 100 }),
  },
  { title: "HandoverConfigurationForUpsert", ...closed },
);

export const HandoverConfiguration = Type.Object(
  {
    version: Type.Integer(),
    created: DateTime(),
    lastModified: DateTime(),
    refusedReasons: AvailableRefusedReasons,
  },
  { title: "HandoverConfiguration" },
);
