/**
 * The picking vocabulary the pick job, pick run, picking configuration and facility families share:
 * picking methods, the pick line status and the scanning configuration.
 */

import { Type } from "@sinclair/typebox";
import { PICK_LINE_ITEM_STATUSES, PICKING_METHODS, SCANNING_TYPES } from "../picking.ts";
import { opt, StringEnum } from "./common.ts";

export const PickLineItemStatus = StringEnum(PICK_LINE_ITEM_STATUSES, { title: "PickLineItemStatus" });

export const PickingMethodEnum = StringEnum(PICKING_METHODS, {
  title: "PickingMethodEnum",
  description: "Way in which the picking should be handled Deprecated: BATCH_PICKING, use BATCH instead",
});

export const ScanningRuleValue = Type.Object(
  {
    priority: Type.Number({ minimum: 0 }),
    scanningRuleType: StringEnum(["ARTICLE", "LOCATION"], { title: "ScanningRuleTypeEnum" }),
  },
  { title: "ScanningRuleValue" },
);
export const ScanningRuleConfiguration = Type.Object(
  { values: opt(Type.Array(ScanningRuleValue)) },
  {
    title: "ScanningRuleConfiguration",
    description: "Configuration to show the client how the items should be scanned during picking",
  },
);
/** How scanning is enforced while picking: a line's scanning rules and the tenant's picking configuration. */
export const PickingScanningConfigurationEnum = () =>
  StringEnum(SCANNING_TYPES, { title: "PickingScanningConfigurationEnum" });
