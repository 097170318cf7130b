/** Read models as messages: the typed envelope fields plus the document as UTF-8 JSON. */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { documentJson } from "@fop/kit/rpc/proto";
import {
  ReasonAction as Action,
  type ItemReturnJobSchema,
  type ParcelSchema,
  type ReasonSchema,
} from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { StoredJob } from "../db/rows.ts";
import type { ItemReturnJob } from "../domain/job.ts";
import type { Parcel } from "../domain/parcel.ts";
import type { Reason, ReasonAction } from "../domain/types.ts";

export const reasonActionToProto = (a: ReasonAction): Action =>
  a === "CANCELATION" ? Action.CANCELATION : Action.REROUTE;

export const toReasonMessage = (r: Reason): MessageInitShape<typeof ReasonSchema> => ({
  id: r.id,
  version: BigInt(r.version),
  action: reasonActionToProto(r.action),
  documentJson: documentJson(r),
});

export const toJobMessage = (j: ItemReturnJob): MessageInitShape<typeof ItemReturnJobSchema> => ({
  id: j.id,
  version: BigInt(j.version),
  status: j.status,
  documentJson: documentJson(j),
});

export const toParcelMessage = (p: Parcel): MessageInitShape<typeof ParcelSchema> => ({
  id: p.id,
  version: BigInt(p.version),
  documentJson: documentJson(p),
});

export const storedJobMessage = (j: StoredJob): MessageInitShape<typeof ItemReturnJobSchema> => ({
  id: j.id,
  version: BigInt(j.version),
  status: j.status,
  documentJson: Buffer.from(j.json, "utf8"),
});
