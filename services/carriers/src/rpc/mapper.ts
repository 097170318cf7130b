/** Read models as messages: the typed envelope fields plus the document as UTF-8 JSON. */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { documentJson } from "@fop/kit/rpc/proto";
import type {
  CarrierConfigurationSchema,
  CarrierSchema,
  CountryServiceMappingSchema,
  TransitTimeConfigurationSchema,
} from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import type {
  Carrier,
  CarrierConfiguration,
  CountryServiceMapping,
  TransitTimeConfiguration,
} from "../domain/types.ts";

/** A carrier, its document `doc` (the full Carrier, or the list's StrippedCarrier). */
export const toCarrierMessage = (c: Carrier, doc: unknown = c): MessageInitShape<typeof CarrierSchema> => ({
  id: c.id,
  version: BigInt(c.version),
  key: c.key,
  documentJson: documentJson(doc),
});

/** A stored carrier whose document is JSON text already. */
export const storedCarrierMessage = (c: {
  id: string;
  version: number;
  key: string;
  json: string;
}): MessageInitShape<typeof CarrierSchema> => ({
  id: c.id,
  version: BigInt(c.version),
  key: c.key,
  documentJson: Buffer.from(c.json, "utf8"),
});

export const toConfigurationMessage = (
  c: CarrierConfiguration,
): MessageInitShape<typeof CarrierConfigurationSchema> => ({
  id: c.id,
  version: BigInt(c.version),
  carrierRef: c.carrierRef,
  documentJson: documentJson(c),
});

/** A stored configuration whose document is JSON text already. */
export const storedConfigurationMessage = (c: {
  id: string;
  version: number;
  carrierRef: string;
  json: string;
}): MessageInitShape<typeof CarrierConfigurationSchema> => ({
  id: c.id,
  version: BigInt(c.version),
  carrierRef: c.carrierRef,
  documentJson: Buffer.from(c.json, "utf8"),
});

export const toMappingMessage = (
  config: CarrierConfiguration,
  m: CountryServiceMapping,
): MessageInitShape<typeof CountryServiceMappingSchema> => ({
  id: m.id,
  carrierRef: config.carrierRef,
  carrierConfigurationVersion: BigInt(config.version),
  documentJson: documentJson(m),
});

export const toTransitTimeMessage = (
  t: TransitTimeConfiguration,
): MessageInitShape<typeof TransitTimeConfigurationSchema> => ({
  id: t.id,
  version: BigInt(t.version),
  calculationStrategy: t.calculationStrategy,
  documentJson: documentJson(t),
});
