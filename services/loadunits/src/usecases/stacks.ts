/** Stack use cases. */
import { requireFacilities } from "@fop/contracts/clients/facilities";
import type { StackListFilters } from "@fop/contracts/loadunits";
import { batchIds } from "@fop/kit/batch";
import type { RequestContext } from "@fop/kit/context";
import { invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { insertStackStatement, listStacks as listRows, loadStackJson, loadStacksJson } from "../db/rows.ts";
import { createStack as create, requestedFacilityRefs } from "../domain/stack.ts";
import type { JsonObject, Stack } from "../domain/types.ts";
import { stackCreatedEvent } from "../events/loadunits.events.ts";
import type { LoadUnitsDeps } from "./deps.ts";

/** POST /api/stacks: every facilityRef must name a facility of the tenant (400 FACILITY_NOT_FOUND). */
export async function createStack(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<Stack> {
  await requireFacilities(deps.facilities, ctx, requestedFacilityRefs(body), "/facilityRefs");
  const stack = create(deps.newId(), body, { now: deps.now() });
  await deps.outbox.write(deps.db, ctx, insertStackStatement(ctx.tenant, stack), [stackCreatedEvent(stack)]);
  return stack;
}

export async function getStack(deps: LoadUnitsDeps, ctx: RequestContext, id: string) {
  const row = isUuid(id) ? await loadStackJson(deps.db, ctx.tenant, id) : undefined;
  if (!row) throw notFound("stack", id);
  return row;
}

/** Many stacks in one read (GraphQL references), as GetStack: unknown and malformed ids are left out. */
export async function batchGetStacks(deps: LoadUnitsDeps, ctx: RequestContext, ids: readonly string[]) {
  const wanted = batchIds(ids);
  return wanted.length ? loadStacksJson(deps.db, ctx.tenant, wanted) : [];
}

/** GET /api/stacks: by id; `facilityRefs` keeps stacks linked to any of them. */
export async function listStacks(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  f: StackListFilters,
  p: { size: number; startAfterId: string },
) {
  if (p.startAfterId && !isUuid(p.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be a stack id.", "startAfterId");
  }
  return listRows(deps.db, ctx.tenant, f.facilityRefs ?? [], p);
}
