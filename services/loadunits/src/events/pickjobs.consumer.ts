/**
 * loadunits-pickjobs: picking's PICK_JOB_* events keep the pick job projection (pick_job_ref)
 * current: id, facility, status, version, all read from the typed PickJob message (never from
 * picking's document). One statement per batch; a row only moves to a higher version, so
 * redelivered and out-of-order events change nothing.
 *
 * Events published before PickJob carried `facility_ref` (picking before issue 29) may still be in
 * the stream. They are read without a facility: a job's facility never changes, so such an event
 * moves the status and version of a job the projection has and keeps its facility; a job the
 * projection has not seen is left out, and the first load unit naming it fetches it from picking
 * (GetPickJob, whose answer carries the typed field: usecases/pickjobs.ts), as for any job whose
 * PICK_JOB_CREATED has not arrived yet.
 */
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { invalid } from "@fop/kit/errors";
import { type ConsumerDeps, eventConsumer } from "@fop/kit/events/consumer";
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { type PickJobEventRow, upsertPickJobRefsStatement } from "../db/rows.ts";

export const PICK_JOBS_CONSUMER = "loadunits-pickjobs";

/** The projection row an event carries (throws for an event that can never be applied). */
export function pickJobRefOf(event: EventEnvelope): PickJobEventRow {
  const job = event.payload ? anyUnpack(event.payload, PickJobSchema) : undefined;
  if (!job?.id) throw invalid("NO_PICK_JOB", `Event ${event.id} (${event.type}) carries no pick job.`);
  if (job.facilityRef === "")
    throw invalid("NO_FACILITY", `Event ${event.id}: the pick job's facility_ref is empty.`);
  return {
    tenant: event.tenant,
    id: job.id,
    // Absent only in an event from before the field (see the module comment).
    facilityRef: job.facilityRef,
    status: job.status,
    version: Number(job.version),
  };
}

/** The newest state of each job among `events` (with the facility of an older one when the newest has none). */
export function newestPerJob(events: EventEnvelope[]): PickJobEventRow[] {
  const newest = new Map<string, PickJobEventRow>();
  for (const e of events) {
    const ref = pickJobRefOf(e);
    const key = `${ref.tenant}\u0000${ref.id}`;
    const was = newest.get(key);
    if (!was || was.version < ref.version)
      newest.set(key, { ...ref, facilityRef: ref.facilityRef ?? was?.facilityRef });
    else if (was.facilityRef === undefined && ref.facilityRef !== undefined)
      newest.set(key, { ...was, facilityRef: ref.facilityRef });
  }
  return [...newest.values()];
}

export const isPickJobEvent = (type: string) => type.startsWith("PICK_JOB_");

export const pickJobsConsumer = (runtime: ConsumerDeps) =>
  eventConsumer(runtime, {
    name: PICK_JOBS_CONSUMER,
    // JetStream delivers it the PICK_JOB entity's events only; every PICK_JOB_* kind carries the
    // job after the change (picking.events.ts).
    entityType: "PICK_JOB",
    types: isPickJobEvent,
    batch: {
      check: (e) => void pickJobRefOf(e),
      statement: (events) => upsertPickJobRefsStatement(newestPerJob(events)),
      size: 64,
    },
    concurrency: 2,
  });
