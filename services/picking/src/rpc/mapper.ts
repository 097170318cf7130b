import type { MessageInitShape } from "@bufbuild/protobuf";
import { documentJson } from "@fop/kit/rpc/proto";
import type {
  PickingConfigurationSchema,
  PickJobSchema,
  PickRunSchema,
} from "@fop/proto/fop/picking/v1/picking_pb.js";
import type { PickingConfiguration } from "../domain/picking-config.ts";
import type { PickJob, PickRun } from "../domain/types.ts";

/** Pick job -> its RPC message (and event payload): typed envelope (with the refs other services need) + the read-model document. */
export function toPickJobMessage(job: PickJob): MessageInitShape<typeof PickJobSchema> {
  return {
    id: job.id,
    version: BigInt(job.version),
    status: job.status,
    facilityRef: job.facilityRef,
    documentJson: documentJson(job),
  };
}

/** A stored pick job (its document JSON text already, sent as it is) -> its RPC message. */
export const storedPickJobMessage = (doc: {
  id: string;
  version: number;
  status: string;
  facilityRef: string;
  json: string;
}): MessageInitShape<typeof PickJobSchema> => ({
  id: doc.id,
  version: BigInt(doc.version),
  status: doc.status,
  facilityRef: doc.facilityRef,
  documentJson: Buffer.from(doc.json, "utf8"),
});

/** Pick run (public read model, without lineSources) -> its RPC message. */
export function toPickRunMessage(run: Omit<PickRun, "lineSources">): MessageInitShape<typeof PickRunSchema> {
  return {
    id: run.id,
    version: BigInt(run.version),
    status: run.status,
    documentJson: documentJson(run),
  };
}

/** The picking configuration -> its RPC message (version typed, the document as JSON). */
export const toPickingConfigurationMessage = (
  c: PickingConfiguration,
): MessageInitShape<typeof PickingConfigurationSchema> => ({
  version: BigInt(c.version),
  documentJson: documentJson(c),
});
