/** Load unit use cases: each is one statement, one transaction or one read, in the caller's tenant. */

import type { LoadUnitListFilters } from "@fop/contracts/loadunits";
import { batchIds } from "@fop/kit/batch";
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { AppError, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { requireCurrentVersion } from "@fop/kit/validation";
import {
  insertLoadUnitsStatement,
  listLoadUnits as listRows,
  loadContainerType,
  loadLoadUnit,
  loadLoadUnitJson,
  loadLoadUnitsById,
  loadPickJobLoadUnits,
  loadPickJobsLoadUnitsJson,
  loadStackJson,
  stackExists,
  updateLoadUnits,
} from "../db/rows.ts";
import {
  checkLoadUnitPatch,
  createLoadUnit,
  localizeLoadUnit,
  obsoleteLoadUnit,
  patchLoadUnit as patch,
  selectForBulkDelete,
  uniquePickJobRefs,
  updateRecordableAttributes,
} from "../domain/loadunit.ts";
import type { ChangeContext, ContainerType, JsonObject, LoadUnit } from "../domain/types.ts";
import { loadUnitEvent } from "../events/loadunits.events.ts";
import type { LoadUnitsDeps } from "./deps.ts";
import { knownPickJobs } from "./pickjobs.ts";

const changeContext = (deps: LoadUnitsDeps): ChangeContext => ({
  now: deps.now(),
  newId: deps.newId,
  defaultLocale: deps.defaultLocale,
});

/** A stored load unit, as text (`json`) or, when a locale asks for other names, re-localized. */
export interface LoadUnitOut {
  id: string;
  version: number;
  status: string;
  json: string;
}
const out = (u: LoadUnit): LoadUnitOut => ({
  id: u.id,
  version: u.version,
  status: u.status,
  json: JSON.stringify(u),
});
const relocalize = (json: string, locale: string | undefined, defaultLocale: string): string =>
  locale ? JSON.stringify(localizeLoadUnit(JSON.parse(json) as LoadUnit, locale, defaultLocale)) : json;

async function requireStack(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  stackRef: string,
  at: string,
): Promise<void> {
  if (!isUuid(stackRef) || !(await stackExists(deps.db, ctx.tenant, stackRef))) {
    throw invalid(
      "STACK_NOT_FOUND",
      `stackRef ${JSON.stringify(stackRef)} names no stack of this tenant.`,
      `${at}/stackRef`,
    );
  }
}

/** The container type an input names (operativeContainerTypeRef wins over loadUnitTypeRef); 400 for an unknown one. */
async function referencedType(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  input: JsonObject,
  at: string,
  seen = new Map<string, ContainerType>(),
): Promise<ContainerType | undefined> {
  let type: ContainerType | undefined;
  for (const [field, kind] of [
    ["loadUnitTypeRef", "LOAD_UNIT_TYPE"],
    ["operativeContainerTypeRef", "OPERATIVE"],
  ] as const) {
    const ref = input[field];
    if (typeof ref !== "string") continue;
    const key = `${kind}:${ref}`;
    let found = seen.get(key);
    if (!found) {
      found = isUuid(ref) ? await loadContainerType(deps.db, ctx.tenant, kind, ref) : undefined;
      if (!found) {
        throw invalid(
          "CONTAINER_TYPE_NOT_FOUND",
          `${field} ${JSON.stringify(ref)} names no such type of this tenant.`,
          `${at}/${field}`,
        );
      }
      seen.set(key, found);
    }
    type = found;
  }
  return type;
}

/** The references of creation inputs checked against the tenant's data, and what they resolve to. */
async function resolveReferences(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  inputs: { input: JsonObject; pickJobRefs: string[]; at: string }[],
) {
  const jobs = await knownPickJobs(
    deps,
    ctx,
    inputs.flatMap((i) => i.pickJobRefs),
  );
  const stacks = new Set<string>();
  const types = new Map<string, ContainerType>();
  const resolved = [];
  for (const { input, pickJobRefs, at } of inputs) {
    const facilities = new Set<string>();
    for (const [j, ref] of pickJobRefs.entries()) {
      const job = jobs.get(ref.toLowerCase());
      if (!job) {
        throw invalid(
          "PICK_JOB_NOT_FOUND",
          `pickJobRefs names ${JSON.stringify(ref)}, which is no pick job of this tenant.`,
          `${at}/pickJobRefs/${j}`,
        );
      }
      facilities.add(job.facilityRef);
    }
    if (facilities.size > 1) {
      throw invalid(
        "PICK_JOBS_IN_DIFFERENT_FACILITIES",
        `The pick jobs of one load unit must be of one facility; these are of ${[...facilities].join(", ")}.`,
        `${at}/pickJobRefs`,
      );
    }
    if (typeof input.stackRef === "string" && !stacks.has(input.stackRef)) {
      await requireStack(deps, ctx, input.stackRef, at);
      stacks.add(input.stackRef);
    }
    const type = await referencedType(deps, ctx, input, at, types);
    resolved.push({ input, pickJobRefs, facilityRef: [...facilities][0]!, type });
  }
  return resolved;
}

async function create(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  inputs: { input: JsonObject; pickJobRefs: string[]; at: string }[],
): Promise<LoadUnit[]> {
  const resolved = await resolveReferences(deps, ctx, inputs);
  const c = changeContext(deps);
  const units = resolved.map((r) =>
    createLoadUnit(
      r.input,
      { id: deps.newId(), facilityRef: r.facilityRef, pickJobRefs: r.pickJobRefs, type: r.type },
      c,
    ),
  );
  await deps.outbox.write(
    deps.db,
    ctx,
    insertLoadUnitsStatement(ctx.tenant, units),
    units.map((u) => loadUnitEvent("LOAD_UNIT_CREATED", u)),
  );
  return units;
}

/** POST /api/loadunits: all or none. */
export async function createLoadUnits(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  inputs: JsonObject[],
): Promise<LoadUnit[]> {
  if (inputs.length === 0)
    throw invalid("LOAD_UNITS_REQUIRED", "loadUnits must hold at least one load unit.", "/loadUnits");
  return create(
    deps,
    ctx,
    inputs.map((input, i) => {
      const at = `/loadUnits/${i}`;
      try {
        return { input, pickJobRefs: uniquePickJobRefs(input), at };
      } catch {
        throw invalid(
          "PICK_JOB_REFS_REQUIRED",
          "pickJobRefs must name at least one pick job.",
          `${at}/pickJobRefs`,
        );
      }
    }),
  );
}

/** POST /api/pickjobs/{id}/loadunits: one load unit of that job (404 for an unknown job). */
export async function createPickJobLoadUnit(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  pickJobId: string,
  body: JsonObject,
): Promise<LoadUnit> {
  await requirePickJob(deps, ctx, pickJobId);
  const [unit] = await create(deps, ctx, [{ input: body, pickJobRefs: [pickJobId.toLowerCase()], at: "" }]);
  return unit!;
}

async function requirePickJob(deps: LoadUnitsDeps, ctx: RequestContext, id: string): Promise<void> {
  if (!(await knownPickJobs(deps, ctx, [id])).has(id.toLowerCase())) throw notFound("pick job", id);
}

export async function getLoadUnit(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  id: string,
  locale: string | undefined,
): Promise<LoadUnitOut> {
  const row = isUuid(id) ? await loadLoadUnitJson(deps.db, ctx.tenant, id) : undefined;
  if (!row) throw notFound("load unit", id);
  return { ...row, json: relocalize(row.json, locale, deps.defaultLocale) };
}

/** Without `statuses`: AVAILABLE only (the reference's default); `statuses: []`: every status. */
export async function listLoadUnits(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  f: LoadUnitListFilters,
  p: { size: number; startAfterId: string; locale?: string | undefined },
): Promise<{ json: string[]; total: number }> {
  if (p.startAfterId && !isUuid(p.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be a load unit id.", "startAfterId");
  }
  const { rows, total } = await listRows(
    deps.db,
    ctx.tenant,
    { pickJobRef: f.pickJobRef, statuses: f.statuses ?? ["AVAILABLE"] },
    p,
  );
  return { json: rows.map((r) => relocalize(r.json, p.locale, deps.defaultLocale)), total };
}

/** GET /api/pickjobs/{id}/loadunits: every load unit of the job, AVAILABLE and OBSOLETE, oldest first. */
export async function listPickJobLoadUnits(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  pickJobId: string,
): Promise<LoadUnit[]> {
  await requirePickJob(deps, ctx, pickJobId);
  return loadPickJobLoadUnits(deps.db, ctx.tenant, pickJobId.toLowerCase());
}

/**
 * The load units of many pick jobs in one read (GraphQL relationships): as ListPickJobLoadUnits
 * (AVAILABLE and OBSOLETE, oldest first), each unit once however many of the jobs it serves;
 * unknown and malformed job ids simply have none (no 404, no call to picking).
 */
export async function listLoadUnitsOfPickJobs(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  pickJobIds: readonly string[],
): Promise<LoadUnitOut[]> {
  const wanted = batchIds(pickJobIds, "pick_job_ids");
  return wanted.length ? loadPickJobsLoadUnitsJson(deps.db, ctx.tenant, wanted) : [];
}

async function requireLoadUnit(
  db: LoadUnitsDeps["db"] | Parameters<typeof loadLoadUnit>[0],
  ctx: RequestContext,
  id: string,
  lock: boolean,
) {
  const unit = isUuid(id) ? await loadLoadUnit(db, ctx.tenant, id, lock) : undefined;
  if (!unit) throw notFound("load unit", id);
  return unit;
}

/** DELETE /api/loadunits/{id}: OBSOLETE, the record kept; deleting an OBSOLETE unit changes nothing. */
export async function deleteLoadUnit(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  id: string,
): Promise<LoadUnit> {
  return inTransaction(deps.db, async (db) => {
    const { unit, changed } = obsoleteLoadUnit(await requireLoadUnit(db, ctx, id, true), changeContext(deps));
    if (changed) {
      await updateLoadUnits(db, ctx.tenant, [unit]);
      await deps.outbox.record(db, ctx, [loadUnitEvent("LOAD_UNIT_OBSOLETED", unit)]);
    }
    return unit;
  });
}

/** DELETE /api/loadunits?pickJobRef=&id=: see selectForBulkDelete for what is a 400, 404 or 422. */
export async function deleteLoadUnits(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  pickJobRef: string,
  ids: string[],
): Promise<LoadUnit[]> {
  if (pickJobRef) await requirePickJob(deps, ctx, pickJobRef);
  const bad = ids.find((id) => !isUuid(id));
  if (bad !== undefined) throw notFound("load unit", bad);
  return inTransaction(deps.db, async (db) => {
    const found = ids.length
      ? await loadLoadUnitsById(db, ctx.tenant, [...new Set(ids.map((i) => i.toLowerCase()))])
      : await loadPickJobLoadUnits(db, ctx.tenant, pickJobRef.toLowerCase(), true);
    const c = changeContext(deps);
    const units = selectForBulkDelete(
      pickJobRef.toLowerCase(),
      ids.map((i) => i.toLowerCase()),
      found,
    ).map((u) => obsoleteLoadUnit(u, c).unit);
    await updateLoadUnits(db, ctx.tenant, units);
    await deps.outbox.record(
      db,
      ctx,
      units.map((u) => loadUnitEvent("LOAD_UNIT_OBSOLETED", u)),
    );
    return units;
  });
}

/** The deprecated PATCH /api/loadunits/{id}: a checked body (400 first), then the named version (409). */
export async function patchLoadUnit(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  id: string,
  body: JsonObject,
): Promise<LoadUnit> {
  // The path's load unit first: one that is not the caller's is a 404 whatever the body names.
  await requireLoadUnit(deps.db, ctx, id, false);
  checkLoadUnitPatch(id, body);
  if (typeof body.stackRef === "string") await requireStack(deps, ctx, body.stackRef, "");
  await referencedType(deps, ctx, body, "");
  return inTransaction(deps.db, async (db) => {
    const unit = await requireLoadUnit(db, ctx, id, true);
    requireCurrentVersion("load unit", unit, body.version);
    const next = patch(unit, body, changeContext(deps));
    await updateLoadUnits(db, ctx.tenant, [next]);
    await deps.outbox.record(db, ctx, [loadUnitEvent("LOAD_UNIT_UPDATED", next)]);
    return next;
  });
}

/** POST /api/loadunits/{id}/actions: one action on the version it names. */
export async function loadUnitAction(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  id: string,
  action: JsonObject,
): Promise<LoadUnit> {
  return inTransaction(deps.db, async (db) => {
    const unit = await requireLoadUnit(db, ctx, id, true);
    requireCurrentVersion("load unit", unit, action.version);
    const next = updateRecordableAttributes(unit, action, changeContext(deps));
    await updateLoadUnits(db, ctx.tenant, [next]);
    await deps.outbox.record(db, ctx, [loadUnitEvent("LOAD_UNIT_UPDATED", next)]);
    return next;
  });
}

/** GET /api/loadunits/{id}/stack: 404 when the unit is unknown or part of no stack. */
export async function getLoadUnitStack(deps: LoadUnitsDeps, ctx: RequestContext, id: string) {
  const unit = await requireLoadUnit(deps.db, ctx, id, false);
  const stack =
    unit.stackRef && isUuid(unit.stackRef)
      ? await loadStackJson(deps.db, ctx.tenant, unit.stackRef)
      : undefined;
  if (stack) return stack;
  // notFound() says "No stack with id ..."; a unit on no stack has no id to name.
  if (!unit.stackRef) {
    throw new AppError("not_found", {
      code: "STACK_NOT_FOUND",
      description: `Load unit ${JSON.stringify(id)} is on no stack.`,
    });
  }
  throw notFound("stack", unit.stackRef);
}

export { out as loadUnitOut };
