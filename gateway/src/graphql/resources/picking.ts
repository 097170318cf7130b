/** Pick jobs and pick runs (the picking service); a pick job's facility and load units. */

import { LoadUnit } from "@fop/contracts/rest/loadunits";
import { PICKING_SUB_CONFIGURATIONS, PickingConfigurations } from "@fop/contracts/rest/pickingconfig";
import {
  PickJob,
  PickJobActionsParameter,
  PickJobSearchPayload,
  pickLineItemProperties,
} from "@fop/contracts/rest/pickjobs";
import { PickRun, PickRunActionsParameter } from "@fop/contracts/rest/pickruns";
import { notFound } from "@fop/kit/errors";
import { parseDocument } from "../../routes/documents.ts";
import { defineConnection, searchArgs, searchRoot } from "../connections.ts";
import { type GqlContext, loader, need, rpc } from "../context.ts";
import { validated } from "../inputs.ts";
import type { Args, GraphModule } from "../module.ts";
import { loadFacility } from "./catalog.ts";

type Doc = Record<string, unknown>;

/** A pick job by id through the request's batch loader (one BatchGetPickJobs per level). */
function loadPickJob(c: GqlContext, id: string) {
  need(c, "PICKJOB_READ");
  return loader<Doc>(c, "pickJob", async (ids) => {
    const res = await c.clients.picking.batchGetPickJobs({ ids: [...ids] }, rpc(c));
    const byId = new Map(res.pickJobs.map((p) => [p.id, parseDocument<Doc>(p.documentJson)]));
    return ids.map((i) => byId.get(i) ?? notFound("pick job", i));
  }).load(id);
}

/** A pick job's load units through the request's batch loader (one ListLoadUnitsOfPickJobs per level). */
function loadUnitsOf(c: GqlContext, pickJobId: string) {
  need(c, "LOADUNIT_READ");
  return loader<Doc[]>(c, "pickJobLoadUnits", async (ids) => {
    const res = await c.clients.loadunits.listLoadUnitsOfPickJobs({ pickJobIds: [...ids] }, rpc(c));
    const byJob = new Map<string, Doc[]>(ids.map((i) => [i, []]));
    for (const u of res.loadUnits) {
      const doc = parseDocument<Doc & { pickJobRefs?: string[] }>(u.documentJson);
      for (const ref of doc.pickJobRefs ?? []) byJob.get(ref)?.push(doc);
    }
    return ids.map((i) => byJob.get(i) ?? []);
  }).load(pickJobId);
}

export const picking: GraphModule = {
  define(t) {
    t.outputType(PickJob);
    t.outputType(PickRun);
    t.outputType(LoadUnit);
    // The scanning rule is the one type ScanningRuleConfiguration (a pick line's deprecated field has it too).
    t.substitute(
      PICKING_SUB_CONFIGURATIONS.scanningConfiguration.properties.scanningRule,
      pickLineItemProperties.scanningRule,
    );
    t.outputType(PickingConfigurations);
    const pickJobs = defineConnection(t, "PickJob", "pick job");
    t.extend("PickJob", [
      `"The pick job's facility (FACILITY_READ)."\n  facility: Facility @semanticNonNull`,
      `"Every load unit of the pick job, AVAILABLE and OBSOLETE, oldest first (LOADUNIT_READ)."\n  loadUnits: [LoadUnit] @semanticNonNull(levels: [0, 1])`,
    ]);
    t.extend("PickRun", [
      `"The run's pick jobs (PICKJOB_READ)."\n  pickJobs: [PickJob] @semanticNonNull(levels: [0, 1])`,
      `"The run's facility (FACILITY_READ)."\n  facility: Facility @semanticNonNull`,
    ]);
    return {
      query: [
        `"A pick job by id (PICKJOB_READ)."\npickJob(id: ID!): PickJob @semanticNonNull`,
        `"Pick jobs, as POST /api/pickjobs/search (PICKJOB_READ)."\npickJobs(${searchArgs(t, PickJobSearchPayload, "PickJob")}): ${pickJobs} @semanticNonNull`,
        `"A pick run by id (PICKRUN_READ)."\npickRun(id: ID!): PickRun @semanticNonNull`,
        `"The tenant's picking configuration, as GET /api/configurations/picking (CONFIG_READ): the defaults (version 0) until the first PATCH."\npickingConfiguration: PickingConfigurations @semanticNonNull`,
      ],
      mutation: [
        `"Runs one pick job action, as POST /api/pickjobs/{id}/actions (PICKJOB_WRITE); action.version must be the current one (else VERSION_CONFLICT)."\npickJobAction(id: ID!, action: ${t.input(PickJobActionsParameter, "PickJobActionsParameter")}): PickJob @semanticNonNull`,
        `"Runs one pick run action, as POST /api/pickruns/{id}/actions (PICKRUN_WRITE)."\npickRunAction(id: ID!, action: ${t.input(PickRunActionsParameter, "PickRunActionsParameter")}): PickRun @semanticNonNull`,
      ],
    };
  },
  resolvers: {
    Query: {
      pickingConfiguration: async (_: unknown, _a: Args, c: GqlContext) => {
        need(c, "CONFIG_READ");
        return parseDocument(
          (await c.clients.picking.getPickingConfiguration({}, rpc(c))).configuration?.documentJson,
        );
      },
      pickJob: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "PICKJOB_READ");
        return parseDocument(
          (await c.clients.picking.getPickJob({ id: a.id }, rpc(c))).pickJob?.documentJson,
        );
      },
      pickJobs: searchRoot("PICKJOB_READ", PickJobSearchPayload, async (c, search) => {
        const res = await c.clients.picking.searchPickJobs({ search }, rpc(c));
        return { nodes: res.pickJobsJson.map((d) => parseDocument(d)), ...res };
      }),
      pickRun: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "PICKRUN_READ");
        return parseDocument(
          (await c.clients.picking.getPickRun({ id: a.id }, rpc(c))).pickRun?.documentJson,
        );
      },
    },
    Mutation: {
      pickJobAction: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "PICKJOB_WRITE");
        const action = validated(PickJobActionsParameter, a.action, "action");
        const res = await c.clients.picking.pickJobAction({ id: a.id, action }, rpc(c));
        return parseDocument(res.pickJob?.documentJson);
      },
      pickRunAction: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "PICKRUN_WRITE");
        const action = validated(PickRunActionsParameter, a.action, "action");
        const res = await c.clients.picking.pickRunAction({ id: a.id, action }, rpc(c));
        return parseDocument(res.pickRun?.documentJson);
      },
    },
    PickJob: {
      facility: (p: { facilityRef: string }, _: Args, c: GqlContext) => loadFacility(c, p.facilityRef),
      loadUnits: (p: { id: string }, _: Args, c: GqlContext) => loadUnitsOf(c, p.id),
    },
    PickRun: {
      pickJobs: (r: { pickJobRefs?: string[] }, _: Args, c: GqlContext) =>
        Promise.all((r.pickJobRefs ?? []).map((id) => loadPickJob(c, id).catch((e: Error) => e))),
      facility: (r: { facilityRef: string }, _: Args, c: GqlContext) => loadFacility(c, r.facilityRef),
    },
  },
};
