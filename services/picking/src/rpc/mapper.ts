import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { PickJobSchema, PickRunSchema } from "@fop/proto/fop/picking/v1/picking_pb.js";
import type { PickJob, PickRun } from "../domain/types.ts";

/** Pick job -> its RPC message: typed envelope + the read-model document. */
export function toPickJobMessage(job: PickJob): MessageInitShape<typeof PickJobSchema> {
  return {
    id: job.id,
    version: BigInt(job.version),
    status: job.status,
    document: job as unknown as JsonObject,
  };
}

/** Pick run (public read model, without lineSources) -> its RPC message. */
export function toPickRunMessage(run: Omit<PickRun, "lineSources">): MessageInitShape<typeof PickRunSchema> {
  return {
    id: run.id,
    version: BigInt(run.version),
    status: run.status,
    document: run as unknown as JsonObject,
  };
}
