/**
 * Recording picks on pick line items: one update (PickLineItemUpdate, PickPickJobPickLineItemUpdate,
 * or the deprecated ModifyPickLineItem) applied to one line, plus the line-level effects of the
 * lifecycle (reset). `picked` values are absolute, never increments.
 *
 * Rules:
 * - `picked` sets the line's picked quantity and `pickedAt` (the given one, else now).
 * - `scannedCodes` and `stickers` replace the line's lists (scanned codes must be known codes when
 *   the tenant's scanCodeValidationConfiguration says CODE_MUST_BE_KNOWN); `customAttributes` replaces (null clears).
 * - `shortPickReason {reasonLocalized}` (or the PATCH's `shortPickReasonLocalized`) is stored with
 *   `reason` = the en_US text, else the first one; it must match an active configured short-pick
 *   reason when the tenant has any (picking-config.ts requireKnownShortPickReason).
 * - Scanning (the tenant's scanningConfiguration.scanningType): an update that records `picked` or
 *   `scannedCodes` leaves the line's picks backed by its scanned codes (requireScans).
 * - `partialStockLocations` update the line's locations by tenantPartialStockId (unknown: 400).
 * - `substituteLineItems` are upserted: without id a new substitute line is added, with id the existing
 *   one is updated (unknown id: 400). The tenantArticleId must be one of the line's
 *   allowedSubstitutes (else 422 SUBSTITUTE_NOT_ALLOWED); the article is taken from it.
 * - Tolerances (tolerance.ts): an over pick is judged whenever a picked/secondaryPicked quantity is
 *   recorded (substitutes included); a short pick when the line becomes CLOSED (or its picks change
 *   while closed), counting picked substitutes.
 */
import { invalid, precondition } from "@fop/kit/errors";
import { requireKnownShortPickReason, requireScans, rulesOf, shortPickReason } from "./picking-config.ts";
import { checkPicked } from "./tolerance.ts";
import type {
  ActionContext,
  JsonObject,
  PartialStockLocation,
  PickLineItem,
  PickLineItemStatus,
  SubstituteLineItem,
} from "./types.ts";

/** Everything picked on a line, its picked substitutes included. */
export const pickedWithSubstitutes = (line: PickLineItem): number =>
  line.picked + (line.substituteLineItems ?? []).reduce((n, s) => n + (s.picked ?? 0), 0);

/** Fields a substitute line inherits from its allowed substitute unless the upsert says otherwise. */
const INHERITED_FROM_SUBSTITUTE = [
  "measurementUnitKey",
  "secondaryMeasurementUnitKey",
  "measurementValidation",
  "scannableCodes",
  "priority",
] as const;

function upsertSubstitutes(line: PickLineItem, items: JsonObject[], field: string, ctx: ActionContext): void {
  const current = [...(line.substituteLineItems ?? [])];
  items.forEach((item, i) => {
    const tenantArticleId = item.tenantArticleId as string;
    const allowed = (line.allowedSubstitutes ?? []).find((s) => s.tenantArticleId === tenantArticleId);
    if (!allowed) {
      throw precondition(
        "SUBSTITUTE_NOT_ALLOWED",
        `Line ${line.id}: ${tenantArticleId} is not one of its allowed substitutes (${field}/${i}/tenantArticleId).`,
      );
    }
    const existing = item.id === undefined ? -1 : current.findIndex((s) => s.id === item.id);
    if (item.id !== undefined && existing < 0) {
      throw invalid(
        "UNKNOWN_SUBSTITUTE_LINE_ITEM",
        `Line ${line.id} has no substitute line item ${JSON.stringify(item.id)}.`,
        `${field}/${i}/id`,
      );
    }
    const article: JsonObject = { tenantArticleId, title: allowed.title as string };
    for (const k of ["imageUrl", "attributes"] as const) {
      if (allowed[k] !== undefined) article[k] = structuredClone(allowed[k]);
    }
    const next: SubstituteLineItem = {
      ...(existing >= 0 ? current[existing] : {}),
      id: existing >= 0 ? current[existing]!.id : ctx.newId(),
      article: article as SubstituteLineItem["article"],
      quantity: item.quantity as number,
    };
    for (const k of ["picked", "pickedAt", "secondaryPicked", "secondaryQuantity"] as const) {
      if (item[k] !== undefined) next[k] = item[k] as never;
    }
    if (item.picked !== undefined && item.pickedAt === undefined) next.pickedAt = ctx.now.toISOString();
    for (const k of INHERITED_FROM_SUBSTITUTE) {
      if (allowed[k] !== undefined && next[k] === undefined) next[k] = structuredClone(allowed[k]);
    }
    if (item.picked !== undefined || item.secondaryPicked !== undefined) {
      checkPicked(
        next as SubstituteLineItem & Pick<PickLineItem, "measurementValidation">,
        next.picked ?? 0,
        item.secondaryPicked === undefined ? undefined : next.secondaryPicked,
        false,
      );
    }
    if (existing >= 0) current[existing] = next;
    else current.push(next);
  });
  line.substituteLineItems = current;
}

/** Records picks on the line's known partial stock locations (400 naming the item for an unknown one). */
export function updateStockLocations(
  line: Pick<PickLineItem, "id" | "partialStockLocations">,
  items: JsonObject[],
  field: string,
): void {
  const locations = [...(line.partialStockLocations ?? [])];
  items.forEach((item, i) => {
    const at = locations.findIndex((l) => l.tenantPartialStockId === item.tenantPartialStockId);
    if (at < 0) {
      throw invalid(
        "UNKNOWN_PARTIAL_STOCK_LOCATION",
        `Line ${line.id} has no partial stock location ${JSON.stringify(item.tenantPartialStockId)}.`,
        `${field}/${i}/tenantPartialStockId`,
      );
    }
    const next: PartialStockLocation = { ...locations[at]!, picked: item.picked as number };
    if (item.stockEmptied !== undefined) next.stockEmptied = item.stockEmptied as boolean;
    if (item.stockRef !== undefined) next.stockRef = item.stockRef as string;
    locations[at] = next;
  });
  line.partialStockLocations = locations;
}

/**
 * The tenant validates scan codes (CODE_MUST_BE_KNOWN): every scanned code must be one of the line's
 * scannableCodes or of its allowed substitutes' (422 SCAN_CODE_UNKNOWN otherwise).
 */
export function requireKnownScanCodes(
  line: PickLineItem,
  scanned: readonly JsonObject[],
  field: string,
): void {
  const known = new Set([
    ...(line.scannableCodes ?? []),
    ...(line.allowedSubstitutes ?? []).flatMap((s) =>
      Array.isArray(s.scannableCodes) ? (s.scannableCodes as string[]) : [],
    ),
  ]);
  scanned.forEach((s, i) => {
    if (!known.has(s.code as string)) {
      throw precondition(
        "SCAN_CODE_UNKNOWN",
        `Line ${line.id}: the scanned code ${JSON.stringify(s.code)} (${field}/${i}/code) is none of the line's scannable codes, and this tenant accepts known codes only (scanCodeValidationConfiguration CODE_MUST_BE_KNOWN).`,
      );
    }
  });
}

/**
 * Judges a closed line's short pick (substitute picks count towards the ordered quantity; the
 * secondary pair when the line has a secondaryPicked).
 */
export function checkClosedLine(line: PickLineItem): void {
  checkPicked(line, Math.min(pickedWithSubstitutes(line), line.quantity), line.secondaryPicked, true);
}

/**
 * Applies `update` to `line` (mutates the given copy). `closeLine` closes it whatever the update
 * says (PICK); otherwise `update.status` (when allowed) sets the line status.
 */
export function applyLineUpdate(
  line: PickLineItem,
  update: JsonObject,
  ctx: ActionContext,
  opts: { field: string; closeLine: boolean; allowStatus: boolean },
): void {
  const { field } = opts;
  const wasClosed = line.status === "CLOSED";
  if (update.picked !== undefined) {
    line.picked = update.picked as number;
    line.pickedAt = (update.pickedAt as string | undefined) ?? ctx.now.toISOString();
  } else if (update.pickedAt !== undefined) line.pickedAt = update.pickedAt as string;
  if (update.secondaryPicked !== undefined) line.secondaryPicked = update.secondaryPicked as number;
  if (update.scannedCodes !== undefined) {
    if (rulesOf(ctx).scanCodesMustBeKnown) {
      requireKnownScanCodes(line, update.scannedCodes as JsonObject[], `${field}/scannedCodes`);
    }
    line.scannedCodes = structuredClone(update.scannedCodes) as unknown as PickLineItem["scannedCodes"];
  }
  if (update.stickers !== undefined) line.stickers = structuredClone(update.stickers) as JsonObject[];
  if (update.stockEmptied !== undefined) line.stockEmptied = update.stockEmptied as boolean;
  if (update.customAttributes !== undefined) {
    line.customAttributes = structuredClone(update.customAttributes) as JsonObject | null;
  }
  const given = update.shortPickReason as JsonObject | undefined;
  const reason = given?.reasonLocalized ?? update.shortPickReasonLocalized;
  if (reason !== undefined) {
    const reasonField =
      given?.reasonLocalized !== undefined ? "shortPickReason/reasonLocalized" : "shortPickReasonLocalized";
    requireKnownShortPickReason(rulesOf(ctx), reason as Record<string, string>, `${field}/${reasonField}`);
    line.shortPickReason = shortPickReason({ ...(reason as Record<string, string>) });
  }
  if (Array.isArray(update.partialStockLocations)) {
    updateStockLocations(
      line,
      update.partialStockLocations as JsonObject[],
      `${field}/partialStockLocations`,
    );
  }
  if (Array.isArray(update.substituteLineItems)) {
    upsertSubstitutes(line, update.substituteLineItems as JsonObject[], `${field}/substituteLineItems`, ctx);
  }
  if (opts.closeLine) line.status = "CLOSED";
  else if (opts.allowStatus && update.status !== undefined) line.status = update.status as PickLineItemStatus;

  if (update.picked !== undefined || update.scannedCodes !== undefined) {
    requireScans(
      rulesOf(ctx),
      ctx.roles,
      line,
      update.picked !== undefined ? `${field}/picked` : `${field}/scannedCodes`,
    );
  }
  const recorded = update.picked !== undefined || update.secondaryPicked !== undefined;
  if (recorded) {
    checkPicked(
      line,
      line.picked,
      update.secondaryPicked === undefined ? undefined : line.secondaryPicked,
      false,
    );
  }
  const picksChanged = recorded || Array.isArray(update.substituteLineItems);
  if (line.status === "CLOSED" && (!wasClosed || picksChanged)) checkClosedLine(line);
}

/** Finds the line an update names (400 naming the field when unknown). */
export function lineIndex(lines: readonly PickLineItem[], id: unknown, field: string): number {
  const at = lines.findIndex((l) => l.id === id);
  if (at < 0) {
    throw invalid(
      "UNKNOWN_PICK_LINE_ITEM",
      `The pick job has no pick line item ${JSON.stringify(id)}.`,
      field,
    );
  }
  return at;
}

/**
 * A line as it was before any picking (RESET): picked 0, status OPEN, no pickedAt, secondaryPicked,
 * scanned codes, substitutes, short-pick reason or stockEmptied; partial stock locations picked 0.
 */
export function resetLine(line: PickLineItem): PickLineItem {
  const {
    pickedAt: _pickedAt,
    secondaryPicked: _secondaryPicked,
    shortPickReason: _shortPickReason,
    stockEmptied: _stockEmptied,
    substituteLineItems: _substituteLineItems,
    ...rest
  } = line;
  const out: PickLineItem = { ...rest, picked: 0, status: "OPEN", scannedCodes: [] };
  if (line.partialStockLocations) {
    out.partialStockLocations = line.partialStockLocations.map(({ stockEmptied: _s, ...l }) => ({
      ...l,
      picked: 0,
    }));
  }
  return out;
}

interface Secondary {
  secondaryQuantity?: number;
  secondaryPicked?: number;
}

/**
 * Splitting `quantity` (of which `picked` picked) off a line, job or run: the part takes the
 * secondary quantity and picks in proportion (rounded down), the line keeps the rest, so the two
 * add up to what the line had. Returns the secondary fields of both (absent ones stay absent).
 */
export function splitSecondary(
  line: Secondary & { quantity: number; picked: number },
  quantity: number,
  picked: number,
): { part: Secondary; rest: Secondary } {
  const part: Secondary = {};
  const rest: Secondary = {};
  if (line.secondaryQuantity !== undefined) {
    part.secondaryQuantity = Math.floor((line.secondaryQuantity * quantity) / line.quantity);
    rest.secondaryQuantity = line.secondaryQuantity - part.secondaryQuantity;
  }
  if (line.secondaryPicked !== undefined) {
    part.secondaryPicked = line.picked > 0 ? Math.floor((line.secondaryPicked * picked) / line.picked) : 0;
    rest.secondaryPicked = line.secondaryPicked - part.secondaryPicked;
  }
  return { part, rest };
}
