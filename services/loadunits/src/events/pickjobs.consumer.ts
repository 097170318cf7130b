/**
 * loadunits-pickjobs: picking's PICK_JOB_* events keep the pick job projection (pick_job_ref)
 * current: id, facility, status, version. One statement per batch; a row only moves to a higher
 * version, so redelivered and out-of-order events change nothing.
 */
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { invalid } from "@fop/kit/errors";
import { type ConsumerDeps, eventConsumer } from "@fop/kit/events/consumer";
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { PickJobSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { type PickJobRef, upsertPickJobRefsStatement } from "../db/rows.ts";

export const PICK_JOBS_CONSUMER = "loadunits-pickjobs";

const FACILITY = /"facilityRef"\s*:\s*"((?:[^"\\]|\\.)*)"/;

/** The projection row an event carries (throws for an event that can never be applied). */
export function pickJobRefOf(event: EventEnvelope): PickJobRef & { tenant: string } {
  const job = event.payload ? anyUnpack(event.payload, PickJobSchema) : undefined;
  if (!job?.id) throw invalid("NO_PICK_JOB", `Event ${event.id} (${event.type}) carries no pick job.`);
  // The document is the job's read model; only its facility is needed (no full parse).
  const match = FACILITY.exec(Buffer.from(job.documentJson).toString("utf8"));
  if (!match) throw invalid("NO_FACILITY", `Event ${event.id}: the pick job has no facilityRef.`);
  return {
    tenant: event.tenant,
    id: job.id,
    facilityRef: JSON.parse(`"${match[1]}"`) as string,
    status: job.status,
    version: Number(job.version),
  };
}

/** The newest state of each job among `events`. */
export function newestPerJob(events: EventEnvelope[]): (PickJobRef & { tenant: string })[] {
  const newest = new Map<string, PickJobRef & { tenant: string }>();
  for (const e of events) {
    const ref = pickJobRefOf(e);
    const key = `${ref.tenant}\u0000${ref.id}`;
    const was = newest.get(key);
    if (!was || was.version < ref.version) newest.set(key, ref);
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
