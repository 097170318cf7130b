/** Domain events and their envelope (fop.events.v1.EventEnvelope). */
import {
  create,
  type DescMessage,
  fromBinary,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { type EventEnvelope, EventEnvelopeSchema } from "@fop/proto/fop/events/v1/envelope_pb.js";
import type { RequestContext } from "../context.ts";
import { toTimestamp } from "../rpc/proto.ts";

/** What a use case records: which entity changed how, and its state after the change. */
export interface DomainEvent<M extends DescMessage = DescMessage> {
  /** Event kind, e.g. PICK_JOB_CREATED, CATEGORY_UPDATED. */
  type: string;
  /** Entity kind, e.g. CATEGORY. */
  entityType: string;
  entityRef: string;
  entityVersion: number;
  entityCreated: Date;
  /** The entity after the change, as its service message. */
  payload?: { schema: M; message: MessageShape<M> };
}

/** The entity an event is about: its ref (usually its id), version and creation, as its service keeps them. */
export interface EventEntity {
  id: string;
  version: number;
  created: Date | string | number;
}

/**
 * The event of kind `type` about `entity` (an `entityType`), carrying its state after the change as
 * a `schema` message built from `message` (no payload: an event that carries none). A deletion is a
 * change too: with `deleted`, its entityVersion is the entity's last version + 1.
 */
export function entityEvent<M extends DescMessage>(
  type: string,
  entityType: string,
  entity: EventEntity,
  payload?: { schema: M; message: MessageInitShape<M> },
  opts: { deleted?: boolean } = {},
): DomainEvent<M> {
  return {
    type,
    entityType,
    entityRef: entity.id,
    entityVersion: opts.deleted ? entity.version + 1 : entity.version,
    entityCreated: entity.created instanceof Date ? entity.created : new Date(entity.created),
    ...(payload
      ? { payload: { schema: payload.schema, message: create(payload.schema, payload.message) } }
      : {}),
  };
}

export function buildEnvelope(ctx: RequestContext, e: DomainEvent, id: string, now: Date): EventEnvelope {
  return create(EventEnvelopeSchema, {
    id,
    type: e.type,
    tenant: ctx.tenant,
    entityType: e.entityType,
    entityRef: e.entityRef,
    entityVersion: BigInt(e.entityVersion),
    entityCreated: toTimestamp(e.entityCreated),
    occurredAt: toTimestamp(now),
    actor: { id: ctx.principal.userId, username: ctx.principal.username },
    client: { api: ctx.client.api, rawInfo: ctx.client.rawInfo },
    traceId: ctx.traceId,
    payload: e.payload ? anyPack(e.payload.schema, e.payload.message) : undefined,
  });
}

export const encodeEnvelope = (e: EventEnvelope): Uint8Array => toBinary(EventEnvelopeSchema, e);
export const decodeEnvelope = (b: Uint8Array): EventEnvelope => fromBinary(EventEnvelopeSchema, b);
