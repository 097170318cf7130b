/** Operative container type and (deprecated) load unit type use cases, icons included. */

import type { OperativeContainerTypeListFilters } from "@fop/contracts/loadunits";
import type { RequestContext } from "@fop/kit/context";
import type { Db } from "@fop/kit/db/sql";
import { inTransaction } from "@fop/kit/db/tx";
import { invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import { requireCurrentVersion } from "@fop/kit/validation";
import {
  deleteIcon,
  insertContainerTypeStatement,
  insertIcon,
  listContainerTypes as listRows,
  loadContainerType,
  loadIcon,
  updateContainerType,
} from "../db/rows.ts";
import {
  checkIcon,
  createContainerType as create,
  iconUrl,
  localizeContainerType,
  matchesScannable,
  modifyLoadUnitType,
  updateOperativeContainerType,
} from "../domain/container-type.ts";
import type { ContainerType, ContainerTypeKind, JsonObject } from "../domain/types.ts";
import { containerTypeEvent } from "../events/loadunits.events.ts";
import type { LoadUnitsDeps } from "./deps.ts";

const label = (kind: ContainerTypeKind) =>
  kind === "OPERATIVE" ? "operative container type" : "load unit type";
const ctxOf = (deps: LoadUnitsDeps) => ({
  now: deps.now(),
  newId: deps.newId,
  defaultLocale: deps.defaultLocale,
});

async function requireType(db: Db, ctx: RequestContext, kind: ContainerTypeKind, id: string, lock: boolean) {
  const type = isUuid(id) ? await loadContainerType(db, ctx.tenant, kind, id, lock) : undefined;
  if (!type) throw notFound(label(kind), id);
  return type;
}

/** The id of the icon a stored iconUrl points at (an uploaded one), if any. */
const storedIconId = (url: string | undefined) => /^\/api\/icons\/([0-9a-f-]{36})$/.exec(url ?? "")?.[1];

/** Creates a type; an inline `icon` (NamedFile) is checked and stored with it. */
export async function createContainerType(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  kind: ContainerTypeKind,
  body: JsonObject,
  locale: string | undefined,
): Promise<ContainerType> {
  const icon = body.icon ? checkIcon(body.icon as JsonObject, deps.iconMaxBytes, "/icon") : undefined;
  let type = create(kind, deps.newId(), body, ctxOf(deps));
  if (!icon) {
    await deps.outbox.write(deps.db, ctx, insertContainerTypeStatement(ctx.tenant, kind, type), [
      containerTypeEvent(kind, "CREATED", type),
    ]);
  } else {
    const iconId = deps.newId();
    type = { ...type, iconUrl: iconUrl(iconId) };
    await inTransaction(deps.db, async (tx) => {
      await insertIcon(tx, ctx.tenant, iconId, icon);
      const insert = insertContainerTypeStatement(ctx.tenant, kind, type);
      await tx.query(insert);
      await deps.outbox.record(tx, ctx, [containerTypeEvent(kind, "CREATED", type)]);
    });
  }
  return localizeContainerType(type, locale, deps.defaultLocale);
}

export async function getContainerType(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  kind: ContainerTypeKind,
  id: string,
  locale: string | undefined,
): Promise<ContainerType> {
  return localizeContainerType(await requireType(deps.db, ctx, kind, id, false), locale, deps.defaultLocale);
}

/**
 * One page of a kind's types (by id), optionally those allowing `operativeType` and those whose
 * scannable identifier matches a scanned value (matched here: PREFIX/SUFFIX/CONTAINS rules).
 */
export async function listContainerTypes(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  kind: ContainerTypeKind,
  f: OperativeContainerTypeListFilters,
  p: { size: number; startAfterId: string; locale?: string | undefined },
): Promise<{ types: ContainerType[]; total: number }> {
  if (p.startAfterId && !isUuid(p.startAfterId)) {
    throw invalid("INVALID_ID", `startAfterId must be a ${label(kind)} id.`, "startAfterId");
  }
  const scanned = f.scannableIdentifier;
  const all = (await listRows(deps.db, ctx.tenant, kind, f.operativeType)).filter(
    (t) => scanned === undefined || matchesScannable(t, scanned),
  );
  const after = p.startAfterId.toLowerCase();
  const page = all.filter((t) => !after || t.id > after).slice(0, p.size);
  return {
    types: page.map((t) => localizeContainerType(t, p.locale, deps.defaultLocale)),
    total: all.length,
  };
}

/** OCT: a partial update naming its version; load unit type: ModifyLoadUnitType actions naming it. */
export async function updateContainerTypeUseCase(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  kind: ContainerTypeKind,
  id: string,
  body: JsonObject,
  locale: string | undefined,
): Promise<ContainerType> {
  const next = await inTransaction(deps.db, async (db) => {
    const type = await requireType(db, ctx, kind, id, true);
    requireCurrentVersion(label(kind), type, body.version);
    const changed =
      kind === "OPERATIVE"
        ? updateOperativeContainerType(type, body, ctxOf(deps))
        : modifyLoadUnitType(type, body, ctxOf(deps));
    await updateContainerType(db, ctx.tenant, changed);
    await deps.outbox.record(db, ctx, [containerTypeEvent(kind, "UPDATED", changed)]);
    return changed;
  });
  return localizeContainerType(next, locale, deps.defaultLocale);
}

/** PUT .../icon: stores the icon (replacing an uploaded one); `created` when the type had none. */
export async function putContainerTypeIcon(
  deps: LoadUnitsDeps,
  ctx: RequestContext,
  kind: ContainerTypeKind,
  id: string,
  file: { name: string; content: string },
  locale: string | undefined,
): Promise<{ type: ContainerType; created: boolean }> {
  const icon = checkIcon(file, deps.iconMaxBytes);
  const result = await inTransaction(deps.db, async (db) => {
    const type = await requireType(db, ctx, kind, id, true);
    const created = !type.iconUrl;
    const old = storedIconId(type.iconUrl);
    if (old) await deleteIcon(db, ctx.tenant, old);
    const iconId = deps.newId();
    await insertIcon(db, ctx.tenant, iconId, icon);
    const next: ContainerType = {
      ...type,
      version: type.version + 1,
      lastModified: deps.now().toISOString(),
      iconUrl: iconUrl(iconId),
    };
    await updateContainerType(db, ctx.tenant, next);
    await deps.outbox.record(db, ctx, [containerTypeEvent(kind, "UPDATED", next)]);
    return { type: next, created };
  });
  return { type: localizeContainerType(result.type, locale, deps.defaultLocale), created: result.created };
}

export async function getIcon(deps: LoadUnitsDeps, ctx: RequestContext, id: string) {
  const icon = isUuid(id) ? await loadIcon(deps.db, ctx.tenant, id) : undefined;
  if (!icon) throw notFound("icon", id);
  return icon;
}
