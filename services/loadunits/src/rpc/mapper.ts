import type { MessageInitShape } from "@bufbuild/protobuf";
import { documentJson } from "@fop/kit/rpc/proto";
import {
  type ContainerTypeSchema,
  ContainerTypeKind as Kind,
  type LoadUnitSchema,
  type StackSchema,
} from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { ContainerType, ContainerTypeKind, LoadUnit, Stack } from "../domain/types.ts";

export const toLoadUnitMessage = (u: LoadUnit): MessageInitShape<typeof LoadUnitSchema> => ({
  id: u.id,
  version: BigInt(u.version),
  status: u.status,
  documentJson: documentJson(u),
});

/** A stored load unit's text as it is. */
export const storedLoadUnitMessage = (r: {
  id: string;
  version: number;
  status: string;
  json: string;
}): MessageInitShape<typeof LoadUnitSchema> => ({
  id: r.id,
  version: BigInt(r.version),
  status: r.status,
  documentJson: Buffer.from(r.json, "utf8"),
});

export const toStackMessage = (s: Stack): MessageInitShape<typeof StackSchema> => ({
  id: s.id,
  version: BigInt(s.version),
  documentJson: documentJson(s),
});

/** A stored stack (its document already JSON text) as a message. */
export const storedStackMessage = (s: {
  id: string;
  version: number;
  json: string;
}): MessageInitShape<typeof StackSchema> => ({
  id: s.id,
  version: BigInt(s.version),
  documentJson: Buffer.from(s.json, "utf8"),
});

export const kindToProto = (k: ContainerTypeKind): Kind =>
  k === "OPERATIVE" ? Kind.OPERATIVE : Kind.LOAD_UNIT_TYPE;

export const toContainerTypeMessage = (
  kind: ContainerTypeKind,
  t: ContainerType,
): MessageInitShape<typeof ContainerTypeSchema> => ({
  id: t.id,
  version: BigInt(t.version),
  kind: kindToProto(kind),
  documentJson: documentJson(t),
});
