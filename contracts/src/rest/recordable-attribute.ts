/** Recordable attributes of a line (RecordableAttribute*): pick jobs, load units, item returns. */

import { Type } from "@sinclair/typebox";
import { RECORDING_RULES } from "../picking.ts";
import { closed, LocaleString, nullable, opt, StringEnum } from "./common.ts";

const RecordingRule = StringEnum(RECORDING_RULES, {
  description: "Indicates whether the value has to be recorded or not",
});

export const RecordableAttributeForCreation = Type.Object(
  {
    keyLocalized: LocaleString,
    group: opt(nullable(Type.String({ minLength: 1, description: "The group of the attribute" }))),
    recordingRule: RecordingRule,
    value: opt(nullable(Type.String({ description: "The value of the attribute" }))),
  },
  { ...closed, title: "RecordableAttributeForCreation" },
);
export const RecordableAttribute = Type.Object(
  {
    keyLocalized: LocaleString,
    group: opt(nullable(Type.String({ minLength: 1 }))),
    id: Type.String({ description: "ID of the recordable attribute" }),
    key: opt(Type.String({ description: "The translated key of the attribute" })),
    originId: opt(nullable(Type.String())),
    recordingRule: RecordingRule,
    value: opt(nullable(Type.String({ minLength: 1 }))),
  },
  { ...closed, title: "RecordableAttribute" },
);
export const RecordableAttributeForUpdate = Type.Object(
  {
    keyLocalized: opt(LocaleString),
    group: opt(nullable(Type.String({ minLength: 1 }))),
    recordableAttributeId: Type.String({ description: "ID of the recordable attribute to update" }),
    recordingRule: opt(RecordingRule),
    value: opt(nullable(Type.String())),
  },
  { ...closed, title: "RecordableAttributeForUpdate" },
);
