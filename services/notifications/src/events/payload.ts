/**
 * An event's entity as JSON: the envelope's payload is the producing service's message packed in
 * an Any; most carry their REST document as `document_json` (sent on as it is), the others are
 * written as proto3 JSON. Knows every service's messages through one registry of the proto files.
 */
import { createRegistry, type DescMessage, type Message, toJson } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { file_fop_carriers_v1_carriers } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import { file_fop_catalog_v1_catalog } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { EventEnvelope } from "@fop/proto/fop/events/v1/envelope_pb.js";
import { file_fop_loadunits_v1_loadunits } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { file_fop_picking_v1_picking } from "@fop/proto/fop/picking/v1/picking_pb.js";
import { file_fop_returns_v1_returns } from "@fop/proto/fop/returns/v1/returns_pb.js";
import type { JsonObject } from "../domain/types.ts";

const registry = createRegistry(
  file_fop_catalog_v1_catalog,
  file_fop_picking_v1_picking,
  file_fop_loadunits_v1_loadunits,
  file_fop_carriers_v1_carriers,
  file_fop_returns_v1_returns,
);

/** The entity the event carries, undefined when it carries none or one we cannot read. */
export function eventDocument(event: EventEnvelope): JsonObject | undefined {
  if (!event.payload) return undefined;
  const message = anyUnpack(event.payload, registry) as (Message & Record<string, unknown>) | undefined;
  if (!message) return undefined;
  const bytes = message.documentJson;
  if (bytes instanceof Uint8Array && bytes.length > 0) {
    try {
      return JSON.parse(Buffer.from(bytes).toString("utf8")) as JsonObject;
    } catch {
      return undefined;
    }
  }
  const schema = registry.getMessage(message.$typeName) as DescMessage | undefined;
  return schema ? (toJson(schema, message, { alwaysEmitImplicit: false }) as JsonObject) : undefined;
}

/** The facility an event is about: the facility itself, or the entity's facilityRef. */
export function eventFacility(event: EventEnvelope, doc: JsonObject | undefined): string | undefined {
  if (event.entityType === "FACILITY") return event.entityRef;
  const ref = doc?.facilityRef ?? doc?.facilityId;
  return typeof ref === "string" && ref ? ref : undefined;
}
