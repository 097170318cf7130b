/**
 * Which pick jobs exist, and in which facility, without a synchronous call on the hot path: the
 * projection (pick_job_ref) that picking's events keep current answers; a job it has not seen yet
 * (its PICK_JOB_CREATED still on its way) costs one GetPickJob call, whose answer is stored.
 */
import type { RequestContext } from "@fop/kit/context";
import { query } from "@fop/kit/db/sql";
import { isUuid } from "@fop/kit/ids";
import { loadPickJobRefs, type PickJobRef, upsertPickJobRefsStatement } from "../db/rows.ts";
import type { LoadUnitsDeps } from "./deps.ts";

/** The tenant's pick jobs among `ids` (absent: no such job). */
export async function knownPickJobs(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  ids: string[],
): Promise<Map<string, PickJobRef>> {
  const valid = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const found = new Map<string, PickJobRef>();
  if (valid.length === 0) return found;
  for (const ref of await loadPickJobRefs(deps.db, ctx.tenant, valid)) found.set(ref.id, ref);
  const missing = valid.filter((id) => !found.has(id));
  if (missing.length) {
    const fetched = (await Promise.all(missing.map((id) => deps.pickJobs.fetch(ctx, id)))).filter(
      (r): r is PickJobRef => r !== undefined,
    );
    for (const ref of fetched) found.set(ref.id, ref);
    if (fetched.length) {
      await query(deps.db, upsertPickJobRefsStatement(fetched.map((r) => ({ ...r, tenant: ctx.tenant }))));
    }
  }
  return found;
}
