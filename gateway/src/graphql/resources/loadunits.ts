/** Load units, stacks and operative container types (the loadunits service). */
import {
  LoadUnitListFilters,
  OperativeContainerTypeListFilters,
  StackListFilters,
} from "@fop/contracts/loadunits";
import { LoadUnit, OperativeContainerType, Stack } from "@fop/contracts/rest/loadunits";
import { notFound } from "@fop/kit/errors";
import { ContainerTypeKind } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import { parseDocument } from "../../routes/documents.ts";
import { defineConnection, listArgs, listRoot } from "../connections.ts";
import { type GqlContext, loader, need, rpc } from "../context.ts";
import type { Args, GraphModule } from "../module.ts";
import { loadFacility } from "./catalog.ts";

type Doc = Record<string, unknown> & { id: string };

/** A stack by id through the request's batch loader (one BatchGetStacks per level). */
function loadStack(c: GqlContext, id: string) {
  need(c, "STACKS_READ");
  return loader<Doc>(c, "stack", async (ids) => {
    const res = await c.clients.loadunits.batchGetStacks({ ids: [...ids] }, rpc(c));
    const byId = new Map(res.stacks.map((s) => [s.id, parseDocument<Doc>(s.documentJson)]));
    return ids.map((i) => byId.get(i) ?? notFound("stack", i));
  }).load(id);
}

const docs = (list: { documentJson: Uint8Array }[]) => list.map((x) => parseDocument<Doc>(x.documentJson));

export const loadUnits: GraphModule = {
  define(t) {
    t.outputType(LoadUnit);
    t.outputType(Stack);
    t.outputType(OperativeContainerType);
    const units = defineConnection(t, "LoadUnit", "load unit");
    const stacks = defineConnection(t, "Stack", "stack");
    const types = defineConnection(t, "OperativeContainerType", "operative container type");
    t.extend("LoadUnit", [
      `"The stack the load unit is part of; null when it is on none (STACKS_READ)."\n  stack: Stack`,
      `"The load unit's facility (FACILITY_READ)."\n  facility: Facility @semanticNonNull`,
    ]);
    t.extend("Stack", [
      `"The stack's facilities (FACILITY_READ)."\n  facilities: [Facility] @semanticNonNull(levels: [0, 1])`,
    ]);
    return {
      query: [
        `"A load unit by id (LOADUNIT_READ)."\nloadUnit(id: ID!, locale: String): LoadUnit @semanticNonNull`,
        `"Load units, as GET /api/loadunits (LOADUNIT_READ); pages forward. Without statuses: AVAILABLE only."\nloadUnits(${listArgs(t, LoadUnitListFilters)}, locale: String): ${units} @semanticNonNull`,
        `"A stack by id (STACKS_READ)."\nstack(id: ID!): Stack @semanticNonNull`,
        `"Stacks, as GET /api/stacks (STACKS_READ); pages forward."\nstacks(${listArgs(t, StackListFilters)}): ${stacks} @semanticNonNull`,
        `"An operative container type by id (CONFIG_READ)."\noperativeContainerType(id: ID!): OperativeContainerType @semanticNonNull`,
        `"Operative container types, as GET /api/operativecontainertypes (CONFIG_READ); pages forward."\noperativeContainerTypes(${listArgs(t, OperativeContainerTypeListFilters)}): ${types} @semanticNonNull`,
      ],
    };
  },
  resolvers: {
    Query: {
      loadUnit: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "LOADUNIT_READ");
        const res = await c.clients.loadunits.getLoadUnit({ id: a.id, locale: a.locale ?? "" }, rpc(c));
        return parseDocument(res.loadUnit?.documentJson);
      },
      loadUnits: listRoot("LOADUNIT_READ", LoadUnitListFilters, async (c, request, a) => {
        const res = await c.clients.loadunits.listLoadUnits({ ...request, locale: a.locale ?? "" }, rpc(c));
        return { nodes: docs(res.loadUnits), total: res.total };
      }),
      stack: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "STACKS_READ");
        return parseDocument((await c.clients.loadunits.getStack({ id: a.id }, rpc(c))).stack?.documentJson);
      },
      stacks: listRoot("STACKS_READ", StackListFilters, async (c, request) => {
        const res = await c.clients.loadunits.listStacks(request, rpc(c));
        return { nodes: docs(res.stacks), total: res.total };
      }),
      operativeContainerType: async (_: unknown, a: Args, c: GqlContext) => {
        need(c, "CONFIG_READ");
        const res = await c.clients.loadunits.getContainerType(
          { kind: ContainerTypeKind.OPERATIVE, id: a.id, locale: "" },
          rpc(c),
        );
        return parseDocument(res.containerType?.documentJson);
      },
      operativeContainerTypes: listRoot(
        "CONFIG_READ",
        OperativeContainerTypeListFilters,
        async (c, request) => {
          const res = await c.clients.loadunits.listContainerTypes(
            { ...request, kind: ContainerTypeKind.OPERATIVE, locale: "" },
            rpc(c),
          );
          return { nodes: docs(res.containerTypes), total: res.total };
        },
      ),
    },
    LoadUnit: {
      stack: (u: { stackRef?: string }, _: Args, c: GqlContext) =>
        u.stackRef ? loadStack(c, u.stackRef) : null,
      facility: (u: { facilityRef: string }, _: Args, c: GqlContext) => loadFacility(c, u.facilityRef),
    },
    Stack: {
      facilities: (s: { facilityRefs?: string[] }, _: Args, c: GqlContext) =>
        Promise.all((s.facilityRefs ?? []).map((id) => loadFacility(c, id).catch((e: Error) => e))),
    },
  },
};
