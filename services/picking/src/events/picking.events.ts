/**
 * The picking service's events. PICK_JOB_CREATED and PICK_JOB_CLOSED are the spec's kinds; the other
 * transitions (PICK_JOB_STARTED, _PICKED, _ABORTED, _CANCELED, _OBSOLETE, _PAUSED, _RESTARTED,
 * _RESET, _UPDATED), PICK_RUN_* and PICKING_CONFIGURATION_CREATED / _UPDATED are ours. Payload: the
 * entity after the change.
 */
import { create } from "@bufbuild/protobuf";
import type { DomainEvent } from "@fop/kit/events/envelope";
import {
  PickingConfigurationSchema,
  PickJobSchema,
  PickRunSchema,
} from "@fop/proto/fop/picking/v1/picking_pb.js";
import type { PickingConfiguration } from "../domain/picking-config.ts";
import { publicPickRun } from "../domain/pickrun.ts";
import type { PickJob, PickRun } from "../domain/types.ts";
import { toPickingConfigurationMessage, toPickJobMessage, toPickRunMessage } from "../rpc/mapper.ts";

export function pickJobEvent(type: string, job: PickJob): DomainEvent {
  return {
    type,
    entityType: "PICK_JOB",
    entityRef: job.id,
    entityVersion: job.version,
    entityCreated: new Date(job.created),
    payload: { schema: PickJobSchema, message: create(PickJobSchema, toPickJobMessage(job)) },
  };
}

export function pickRunEvent(type: string, run: PickRun): DomainEvent {
  return {
    type,
    entityType: "PICK_RUN",
    entityRef: run.id,
    entityVersion: run.version,
    entityCreated: new Date(run.created),
    payload: {
      schema: PickRunSchema,
      message: create(PickRunSchema, toPickRunMessage(publicPickRun(run) as unknown as PickRun)),
    },
  };
}

/** PICKING_CONFIGURATION_CREATED / _UPDATED (entityRef: the tenant: there is one per tenant). */
export function pickingConfigurationEvent(
  change: "CREATED" | "UPDATED",
  tenant: string,
  c: PickingConfiguration,
): DomainEvent {
  return {
    type: `PICKING_CONFIGURATION_${change}`,
    entityType: "PICKING_CONFIGURATION",
    entityRef: tenant,
    entityVersion: c.version,
    entityCreated: new Date(c.created ?? c.lastModified ?? 0),
    payload: {
      schema: PickingConfigurationSchema,
      message: create(PickingConfigurationSchema, toPickingConfigurationMessage(c)),
    },
  };
}
