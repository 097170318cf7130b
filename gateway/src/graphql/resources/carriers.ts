/** Carriers, their configuration (with its country service mappings) and transit time (the carriers service). */
import {
  Carrier,
  CarrierConfiguration,
  StrippedCarriers,
  TransitTimeConfiguration,
} from "@fop/contracts/rest/carriers";
import { parseDocument } from "../../routes/documents.ts";
import { defineConnection, LIST_ARGS, listRoot } from "../connections.ts";
import { type GqlContext, loader, need, rpc } from "../context.ts";
import type { Args, GraphModule } from "../module.ts";

type Doc = Record<string, unknown> & { id: string };

/**
 * A carrier's configuration through the request's batch loader: one BatchGetConfigurations per
 * level. A carrier whose configuration was never read or written has none stored yet; for it (once
 * in its life) GetConfiguration creates the default, as the REST GET does.
 */
function loadConfiguration(c: GqlContext, carrierId: string) {
  need(c, "CARRIER_READ");
  return loader<Doc>(c, "carrierConfiguration", async (ids) => {
    const res = await c.clients.carriers.batchGetConfigurations({ carrierIds: [...ids] }, rpc(c));
    const byCarrier = new Map(
      res.configurations.map((x) => [x.carrierId, parseDocument<Doc>(x.configuration?.documentJson)]),
    );
    return Promise.all(
      ids.map(
        async (i) =>
          byCarrier.get(i) ??
          c.clients.carriers
            .getConfiguration({ carrierId: i }, rpc(c))
            .then((r) => parseDocument<Doc>(r.configuration?.documentJson))
            .catch((e: Error) => e),
      ),
    );
  }).load(carrierId);
}

const configurationOf = (carrier: { id: string }, _: Args, c: GqlContext) => loadConfiguration(c, carrier.id);

export const carriers: GraphModule = {
  define(t) {
    t.outputType(Carrier);
    t.outputType(CarrierConfiguration);
    t.outputType(TransitTimeConfiguration);
    // The list answers what GET /api/carriers does: the carrier without credentials and parcel defaults.
    const stripped = t.outputType(StrippedCarriers.properties.carriers.items);
    const list = defineConnection(t, stripped, "carrier");
    for (const type of ["Carrier", stripped]) {
      t.extend(type, [
        `"The carrier's configuration with its country service mappings (CARRIER_READ)."\n  configuration: CarrierConfiguration @semanticNonNull`,
      ]);
    }
    return {
      query: [
        `"A carrier by id (CARRIER_READ)."\ncarrier(id: ID!): Carrier @semanticNonNull`,
        `"Carriers, as GET /api/carriers (the list's fields; carrier(id) has them all) (CARRIER_READ); pages forward."\ncarriers(${LIST_ARGS}): ${list} @semanticNonNull`,
        `"The tenant's transit time configuration (CARRIER_READ)."\ntransitTimeConfiguration: TransitTimeConfiguration @semanticNonNull`,
      ],
    };
  },
  resolvers: {
    Query: {
      carrier: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "CARRIER_READ");
        return parseDocument(
          (await c.clients.carriers.getCarrier({ id: a.id }, rpc(c))).carrier?.documentJson,
        );
      },
      carriers: listRoot("CARRIER_READ", undefined, async (c, { page }) => {
        const res = await c.clients.carriers.listCarriers({ page }, rpc(c));
        return { nodes: res.carriers.map((x) => parseDocument<Doc>(x.documentJson)), total: res.total };
      }),
      transitTimeConfiguration: async (_: unknown, _a: Args, c: GqlContext) => {
        need(c, "CARRIER_READ");
        const res = await c.clients.carriers.getTransitTimeConfiguration({}, rpc(c));
        return parseDocument(res.configuration?.documentJson);
      },
    },
    Carrier: { configuration: configurationOf },
    StrippedCarrier: { configuration: configurationOf },
  },
};
