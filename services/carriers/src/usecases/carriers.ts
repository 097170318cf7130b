/** Carrier use cases: create, read, list, ModifyCarrier. Credentials are sealed before they are stored. */
import type { RequestContext } from "@fop/kit/context";
import { inTransaction } from "@fop/kit/db/tx";
import { conflict, invalid, notFound } from "@fop/kit/errors";
import { isUuid } from "@fop/kit/ids";
import {
  insertCarrierStatement,
  listCarriers as listRows,
  loadCarrier,
  loadCarrierJson,
  updateCarrier,
} from "../db/rows.ts";
import { createCarrier as create, modifyCarrier, strippedCarrier } from "../domain/carrier.ts";
import type { Carrier, JsonObject } from "../domain/types.ts";
import { carrierEvent } from "../events/carriers.events.ts";
import type { CarriersDeps } from "./deps.ts";

const keyTaken = (key: string) => () =>
  conflict("CARRIER_KEY_EXISTS", `A carrier with key ${JSON.stringify(key)} exists already.`, "/key");

const ctxOf = (deps: CarriersDeps) => ({ now: deps.now(), newId: deps.newId });

/** POST /api/carriers: 409 when the tenant has a carrier with that key. */
export async function createCarrier(
  deps: CarriersDeps,
  ctx: RequestContext,
  body: JsonObject,
): Promise<Carrier> {
  const { carrier, secret } = create(deps.newId(), body, ctxOf(deps));
  const sealed = secret ? deps.credentials.seal(ctx.tenant, carrier.id, secret) : null;
  await deps.outbox.write(
    deps.db,
    ctx,
    insertCarrierStatement(ctx.tenant, carrier, sealed),
    [carrierEvent("CREATED", carrier)],
    { carrier_key_unique: keyTaken(carrier.key) },
  );
  return carrier;
}

export async function getCarrier(deps: CarriersDeps, ctx: RequestContext, id: string) {
  const row = isUuid(id) ? await loadCarrierJson(deps.db, ctx.tenant, id) : undefined;
  if (!row) throw notFound("carrier", id);
  return row;
}

/** GET /api/carriers: StrippedCarriers by id (creation order). */
export async function listCarriers(
  deps: CarriersDeps,
  ctx: RequestContext,
  page: { size: number; startAfterId: string },
) {
  if (page.startAfterId && !isUuid(page.startAfterId)) {
    throw invalid("INVALID_ID", "startAfterId must be a carrier id.", "startAfterId");
  }
  const { rows, total } = await listRows(deps.db, ctx.tenant, page);
  return { carriers: rows.map((c) => ({ carrier: c, stripped: strippedCarrier(c) })), total };
}

/** PATCH /api/carriers/{id}: ModifyCarrier actions on the version the body names. */
export async function patchCarrier(
  deps: CarriersDeps,
  ctx: RequestContext,
  id: string,
  body: JsonObject,
): Promise<Carrier> {
  return inTransaction(deps.db, async (tx) => {
    const row = isUuid(id) ? await loadCarrier(tx, ctx.tenant, id, true) : undefined;
    if (!row) throw notFound("carrier", id);
    const stored = row.credentials ? openStored(deps, ctx, id, row.credentials) : undefined;
    const { carrier, secret } = modifyCarrier(row.doc, stored, body, ctxOf(deps));
    const sealed = secret ? deps.credentials.seal(ctx.tenant, id, secret) : undefined;
    await updateCarrier(tx, ctx.tenant, carrier, sealed);
    await deps.outbox.record(tx, ctx, [carrierEvent("UPDATED", carrier)]);
    return carrier;
  });
}

/**
 * The stored credentials, to merge a partial modification into. Sealed under another key (the key
 * was rotated): unreadable, so the modification replaces them instead of merging.
 */
function openStored(
  deps: CarriersDeps,
  ctx: RequestContext,
  id: string,
  sealed: Buffer,
): JsonObject | undefined {
  try {
    return deps.credentials.open(ctx.tenant, id, sealed);
  } catch {
    return undefined;
  }
}
