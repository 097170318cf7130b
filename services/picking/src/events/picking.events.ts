/**
 * The picking service's events. PICK_JOB_CREATED and PICK_JOB_CLOSED are the spec's kinds; the other
 * transitions (PICK_JOB_STARTED, _PICKED, _ABORTED, _CANCELED, _OBSOLETE, _PAUSED, _RESTARTED,
 * _RESET, _UPDATED), PICK_RUN_* and PICKING_CONFIGURATION_CREATED / _UPDATED are ours. Payload: the
 * entity after the change.
 */
import { type DomainEvent, entityEvent } from "@fop/kit/events/envelope";
import {
  PickingConfigurationSchema,
  PickJobSchema,
  PickRunSchema,
} from "@fop/proto/fop/picking/v1/picking_pb.js";
import type { PickingConfiguration } from "../domain/picking-config.ts";
import { publicPickRun } from "../domain/pickrun.ts";
import type { PickJob, PickRun } from "../domain/types.ts";
import { toPickingConfigurationMessage, toPickJobMessage, toPickRunMessage } from "../rpc/mapper.ts";

export const pickJobEvent = (type: string, job: PickJob): DomainEvent =>
  entityEvent(type, "PICK_JOB", job, { schema: PickJobSchema, message: toPickJobMessage(job) });

export const pickRunEvent = (type: string, run: PickRun): DomainEvent =>
  entityEvent(type, "PICK_RUN", run, {
    schema: PickRunSchema,
    message: toPickRunMessage(publicPickRun(run) as unknown as PickRun),
  });

/** PICKING_CONFIGURATION_CREATED / _UPDATED (entityRef: the tenant: there is one per tenant). */
export function pickingConfigurationEvent(
  change: "CREATED" | "UPDATED",
  tenant: string,
  c: PickingConfiguration,
): DomainEvent {
  return entityEvent(
    `PICKING_CONFIGURATION_${change}`,
    "PICKING_CONFIGURATION",
    { id: tenant, version: c.version, created: c.created ?? c.lastModified ?? 0 },
    { schema: PickingConfigurationSchema, message: toPickingConfigurationMessage(c) },
  );
}
