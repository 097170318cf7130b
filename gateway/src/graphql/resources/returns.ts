/**
 * Item return jobs with their item returns, reasons, the return configuration and the handover
 * configuration with its refuse reasons (the returns service).
 */

import { AvailableRefusedReason, HandoverConfiguration } from "@fop/contracts/rest/handover";
import { ItemReturn, ItemReturnJob, LocalizedReturnConfiguration } from "@fop/contracts/rest/itemreturns";
import { Reason } from "@fop/contracts/rest/reasons";
import { ItemReturnJobListFilters, ItemReturnListFilters } from "@fop/contracts/returns";
import { ReasonAction } from "@fop/proto/fop/returns/v1/returns_pb.js";
import { parseDocument } from "../../routes/documents.ts";
import { defineConnection, LIST_ARGS, listArgs, listRoot } from "../connections.ts";
import { type GqlContext, need, rpc } from "../context.ts";
import type { Args, GraphModule } from "../module.ts";
import { loadFacility } from "./catalog.ts";

type Doc = Record<string, unknown> & { id: string };

const REASONS = [
  {
    field: "cancelationReasons",
    one: "cancelationReason",
    title: "CancelationReason",
    action: ReasonAction.CANCELATION,
    name: "CANCELATION",
  },
  {
    field: "rerouteDescriptions",
    one: "rerouteDescription",
    title: "RerouteDescription",
    action: ReasonAction.REROUTE,
    name: "REROUTE",
  },
] as const;

export const returns: GraphModule = {
  define(t) {
    // The job's embedded item returns are open objects in the REST schema: typed here.
    t.substitute(ItemReturnJob.properties.itemReturns.items, ItemReturn);
    t.outputType(ItemReturnJob);
    t.outputType(LocalizedReturnConfiguration, "ReturnConfiguration");
    t.outputType(AvailableRefusedReason);
    t.outputType(HandoverConfiguration);
    const jobs = defineConnection(t, "ItemReturnJob", "item return job");
    const itemReturns = defineConnection(t, "ItemReturn", "item return");
    t.extend("ItemReturnJob", [
      `"The facilities the returned items came from (FACILITY_READ)."\n  originFacilities: [Facility] @semanticNonNull(levels: [0, 1])`,
    ]);
    const reasons = REASONS.flatMap((k) => {
      t.outputType(Reason(k.title, k.name));
      const conn = defineConnection(t, k.title, k.title.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase());
      return [
        `"A ${k.title} by id (CONFIG_READ)."\n${k.one}(id: ID!): ${k.title} @semanticNonNull`,
        `"${k.title}s, as their REST list (CONFIG_READ); pages forward."\n${k.field}(${LIST_ARGS}): ${conn} @semanticNonNull`,
      ];
    });
    return {
      query: [
        `"An item return job with its item returns, by id (RETURN_READ)."\nitemReturnJob(id: ID!): ItemReturnJob @semanticNonNull`,
        `"Item return jobs, as GET /api/itemreturnjobs (RETURN_READ); pages forward."\nitemReturnJobs(${listArgs(t, ItemReturnJobListFilters)}): ${jobs} @semanticNonNull`,
        `"Item returns across jobs, as GET /api/itemreturns (RETURN_READ); pages forward."\nitemReturns(${listArgs(t, ItemReturnListFilters)}): ${itemReturns} @semanticNonNull`,
        `"The tenant's return configuration (CONFIG_READ)."\nreturnConfiguration: ReturnConfiguration @semanticNonNull`,
        `"The tenant's handover configuration (CONFIG_READ); an error until the first PUT /api/configurations/handover."\nhandoverConfiguration: HandoverConfiguration @semanticNonNull`,
        `"The tenant's handover refuse reasons, as GET /api/configurations/handover/refusereasons (CONFIG_READ)."\nrefuseReasons: [AvailableRefusedReason] @semanticNonNull(levels: [0, 1])`,
        ...reasons,
      ],
    };
  },
  resolvers: {
    Query: {
      itemReturnJob: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "RETURN_READ");
        const res = await c.clients.returns.getItemReturnJob({ id: a.id }, rpc(c));
        return parseDocument(res.itemReturnJob?.documentJson);
      },
      itemReturnJobs: listRoot("RETURN_READ", ItemReturnJobListFilters, async (c, request) => {
        const res = await c.clients.returns.listItemReturnJobs(request, rpc(c));
        return { nodes: res.itemReturnJobs.map((j) => parseDocument<Doc>(j.documentJson)), total: res.total };
      }),
      itemReturns: listRoot("RETURN_READ", ItemReturnListFilters, async (c, request) => {
        const res = await c.clients.returns.findItemReturns(request, rpc(c));
        return { nodes: res.itemReturnsJson.map((d) => parseDocument<Doc>(d)), total: res.totalCount };
      }),
      returnConfiguration: async (_: unknown, _a: Args, c: GqlContext) => {
        need(c, "CONFIG_READ");
        return parseDocument(
          (await c.clients.returns.getReturnConfiguration({}, rpc(c))).configuration?.documentJson,
        );
      },
      handoverConfiguration: async (_: unknown, _a: Args, c: GqlContext) => {
        need(c, "CONFIG_READ");
        return parseDocument(
          (await c.clients.returns.getHandoverConfiguration({}, rpc(c))).configuration?.documentJson,
        );
      },
      refuseReasons: async (_: unknown, _a: Args, c: GqlContext) => {
        need(c, "CONFIG_READ");
        return parseDocument((await c.clients.returns.listRefuseReasons({}, rpc(c))).refusedReasonsJson);
      },
      ...Object.fromEntries(
        REASONS.flatMap((k) => [
          [
            k.one,
            async (_: unknown, a: Args, c: GqlContext) => {
              need(c, "CONFIG_READ");
              const res = await c.clients.returns.getReason({ action: k.action, id: a.id }, rpc(c));
              return parseDocument(res.reason?.documentJson);
            },
          ],
          [
            k.field,
            listRoot("CONFIG_READ", undefined, async (c, { page }) => {
              const res = await c.clients.returns.listReasons({ action: k.action, page }, rpc(c));
              return { nodes: res.reasons.map((r) => parseDocument<Doc>(r.documentJson)), total: res.total };
            }),
          ],
        ]),
      ),
    },
    ItemReturnJob: {
      originFacilities: (j: { originFacilityRefs?: string[] }, _: Args, c: GqlContext) =>
        Promise.all((j.originFacilityRefs ?? []).map((id) => loadFacility(c, id).catch((e: Error) => e))),
    },
  },
};
