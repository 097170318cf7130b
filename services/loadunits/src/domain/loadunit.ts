/**
 * Load unit rules: creation from the reference's creation input, the soft delete, the deprecated
 * PATCH (ReplaceLoadUnitLineItems or a partial load unit), the recordable-attribute action, and
 * locale resolution. Pure functions over the read model; no I/O.
 */
import { invalid, notFound, precondition } from "@fop/kit/errors";
import { localizeNameAndDescription, resolveLocalized } from "./locale.ts";
import type {
  ChangeContext,
  ContainerType,
  Json,
  JsonObject,
  LoadUnit,
  LoadUnitLineItem,
  RecordableAttribute,
} from "./types.ts";

/** The one action of POST /api/loadunits/{id}/actions (fill-ins: the reference's only value). */
export const UPDATE_RECORDABLE_ATTRIBUTES = "UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES";

const obj = (v: Json | undefined): JsonObject | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
const str = (v: Json | undefined): string | undefined => (typeof v === "string" ? v : undefined);
const strings = (v: Json | undefined): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;

/** Copies the keys of `from` that are present (not undefined) onto `to`. */
function copyPresent(to: Record<string, unknown>, from: JsonObject, keys: readonly string[]): void {
  for (const k of keys) if (from[k] !== undefined) to[k] = from[k];
}

/** A line item of the creation input with the ids the service generates. */
function newLineItem(input: JsonObject, c: ChangeContext): LoadUnitLineItem {
  const { recordableAttributes, ...rest } = input;
  const item: LoadUnitLineItem = { ...rest, id: c.newId(), article: obj(input.article) ?? {} };
  if (Array.isArray(recordableAttributes)) {
    item.recordableAttributes = recordableAttributes.map((a) => ({
      ...(obj(a) as unknown as Omit<RecordableAttribute, "id">),
      id: c.newId(),
    }));
  }
  return item;
}

/** What a load unit takes over from the container type it names. */
export function typeTemplate(type: ContainerType): Partial<LoadUnit> {
  const t: Partial<LoadUnit> = { nameLocalized: type.nameLocalized };
  if (type.descriptionLocalized) t.descriptionLocalized = type.descriptionLocalized;
  if (type.dimensions) t.dimensions = type.dimensions;
  if (type.weightLimitInG !== undefined) t.weightLimitInG = type.weightLimitInG;
  if (type.iconUrl) t.iconUrl = type.iconUrl;
  return t;
}

export interface NewLoadUnit {
  id: string;
  /** Derived from the pick jobs (never from the request). */
  facilityRef: string;
  pickJobRefs: string[];
  /** The operative container type / load unit type the input names, if any. */
  type?: ContainerType;
}

/**
 * A new load unit from a LoadUnitForCreation (or PickingLoadUnitForCreation) body. `status` is
 * AVAILABLE and `facilityRef` comes from the pick jobs: a client's values for either are ignored.
 */
export function createLoadUnit(input: JsonObject, n: NewLoadUnit, c: ChangeContext): LoadUnit {
  const at = c.now.toISOString();
  const unit: LoadUnit = {
    id: n.id,
    version: 1,
    created: at,
    lastModified: at,
    status: "AVAILABLE",
    facilityRef: n.facilityRef,
    pickJobRefs: n.pickJobRefs,
    nameLocalized: {},
    ...(n.type ? typeTemplate(n.type) : {}),
  };
  copyPresent(unit as unknown as Record<string, unknown>, input, [
    "codes",
    "customAttributes",
    "loadUnitTypeRef",
    "operativeContainerTypeRef",
    "stackRef",
    "storageLocationRef",
  ]);
  const items = input.loadUnitLineItems;
  if (Array.isArray(items)) unit.loadUnitLineItems = items.map((i) => newLineItem(obj(i) ?? {}, c));
  return localizeLoadUnit(unit, undefined, c.defaultLocale);
}

/** The pick job refs of a creation input, each once, in order. */
export function uniquePickJobRefs(input: JsonObject): string[] {
  const refs = strings(input.pickJobRefs) ?? [];
  if (refs.length === 0) {
    throw invalid("PICK_JOB_REFS_REQUIRED", "pickJobRefs must name at least one pick job.", "/pickJobRefs");
  }
  return [...new Set(refs)];
}

/** `name`, `description` and each recordable attribute's `key` for `locale` (see locale.ts). */
export function localizeLoadUnit(
  unit: LoadUnit,
  locale: string | undefined,
  defaultLocale: string,
): LoadUnit {
  const out = localizeNameAndDescription(unit, locale, defaultLocale);
  if (unit.loadUnitLineItems) {
    out.loadUnitLineItems = unit.loadUnitLineItems.map((item) =>
      item.recordableAttributes
        ? {
            ...item,
            recordableAttributes: item.recordableAttributes.map((a) => {
              const key = resolveLocalized(a.keyLocalized, locale, defaultLocale);
              return key === undefined ? a : { ...a, key };
            }),
          }
        : item,
    );
  }
  return out;
}

/** Changes must name a load unit that is not OBSOLETE (422 otherwise). */
export function requireAvailable(unit: LoadUnit): void {
  if (unit.status === "OBSOLETE") {
    throw precondition("LOAD_UNIT_OBSOLETE", `Load unit ${unit.id} is OBSOLETE and cannot be changed.`);
  }
}

function touched(unit: LoadUnit, c: ChangeContext): LoadUnit {
  return { ...unit, version: unit.version + 1, lastModified: c.now.toISOString() };
}

/** The soft delete: OBSOLETE, the record kept. An OBSOLETE unit stays as it is (no new version). */
export function obsoleteLoadUnit(unit: LoadUnit, c: ChangeContext): { unit: LoadUnit; changed: boolean } {
  if (unit.status === "OBSOLETE") return { unit, changed: false };
  return { unit: { ...touched(unit, c), status: "OBSOLETE" }, changed: true };
}

/** Fields a partial PATCH may change; id, status, facilityRef, pickJobRefs and timestamps are the service's. */
export const PATCHABLE_FIELDS = [
  "codes",
  "customAttributes",
  "descriptionLocalized",
  "dimensions",
  "iconUrl",
  "loadUnitTypeRef",
  "nameLocalized",
  "operativeContainerTypeRef",
  "operativeProcessRef",
  "stackRef",
  "storageLocationRef",
  "weightLimitInG",
] as const;

/** The reference's required fields of a LoadUnit: the deprecated PATCH's second form must give them all. */
export const LOAD_UNIT_REQUIRED_FIELDS = [
  "id",
  "created",
  "lastModified",
  "version",
  "facilityRef",
  "pickJobRefs",
  "nameLocalized",
  "status",
] as const;

/** The one action of the deprecated PATCH's LoadUnitPatchActions. */
export const REPLACE_LINE_ITEMS = "ReplaceLoadUnitLineItems";

/**
 * The deprecated PATCH's body is one of the reference's two forms, checked before anything is read:
 * `LoadUnitPatchActions` (it has `actions`: 1-100 ReplaceLoadUnitLineItems, each line item with its
 * `id`) or a whole `LoadUnit` (every field the reference requires, `id` the path's). Both name the
 * `version` they change. Anything else is a 400 naming the field, so a misspelled action or a body
 * of loose fields is never taken for a change that changes nothing.
 */
export function checkLoadUnitPatch(id: string, body: JsonObject): void {
  if (body.actions !== undefined) {
    const actions = body.actions;
    if (!Array.isArray(actions) || actions.length === 0 || actions.length > 100) {
      throw invalid(
        "INVALID_ACTIONS",
        "actions must list 1 to 100 ReplaceLoadUnitLineItems actions.",
        "/actions",
      );
    }
    actions.forEach((a, i) => {
      const action = obj(a);
      if (action?.action !== REPLACE_LINE_ITEMS) {
        throw invalid(
          "UNKNOWN_ACTION",
          `actions/${i}/action must be ${REPLACE_LINE_ITEMS}, not ${JSON.stringify(action?.action ?? null)}.`,
          `/actions/${i}/action`,
        );
      }
      checkLineItemIds(action.loadUnitLineItems, `/actions/${i}/loadUnitLineItems`, true);
    });
  } else {
    for (const k of LOAD_UNIT_REQUIRED_FIELDS) {
      if (body[k] === undefined || body[k] === null) {
        throw invalid(
          "REQUIRED",
          `${k} is required: the body is LoadUnitPatchActions {version, actions} or a whole LoadUnit.`,
          `/${k}`,
        );
      }
    }
    if (body.id !== id) {
      throw invalid(
        "ID_MISMATCH",
        `id ${JSON.stringify(body.id)} is not the load unit's id ${JSON.stringify(id)}.`,
        "/id",
      );
    }
    if (body.loadUnitLineItems !== undefined && body.loadUnitLineItems !== null)
      checkLineItemIds(body.loadUnitLineItems, "/loadUnitLineItems", false);
  }
  if (typeof body.version !== "number" || !Number.isInteger(body.version)) {
    throw invalid("VERSION_REQUIRED", "version must be the load unit's current version.", "/version");
  }
}

/** Replacement line items: a list (of at most 100) whose every entry names its `id`. */
function checkLineItemIds(v: Json | undefined, field: string, required: boolean): void {
  if (!Array.isArray(v) || v.length > 100) {
    if (!required && v === undefined) return;
    throw invalid("INVALID_LINE_ITEMS", `${field.slice(1)} must be a list of at most 100 line items.`, field);
  }
  v.forEach((item, j) => {
    const lineId = obj(item)?.id;
    if (typeof lineId !== "string" || lineId === "") {
      throw invalid(
        "LINE_ITEM_ID_REQUIRED",
        `${field.slice(1)}/${j}/id is required: replacement line items name their ids.`,
        `${field}/${j}/id`,
      );
    }
  });
}

/**
 * The deprecated PATCH (a body {@link checkLoadUnitPatch} accepted): `{version, actions:
 * [ReplaceLoadUnitLineItems...]}` replaces the line items (the last action wins); a whole load unit
 * sets its PATCHABLE_FIELDS (null clears an optional field, an absent one stays) and its line items,
 * if given, replace the old ones. id, status, facilityRef, pickJobRefs and the timestamps it carries
 * are the service's and stay as they are.
 */
export function patchLoadUnit(unit: LoadUnit, body: JsonObject, c: ChangeContext): LoadUnit {
  requireAvailable(unit);
  const next = touched(unit, c) as unknown as Record<string, unknown>;
  if (Array.isArray(body.actions)) {
    for (const a of body.actions) {
      const action = obj(a);
      if (action?.action !== REPLACE_LINE_ITEMS) {
        throw invalid("UNKNOWN_ACTION", `Each action must be ${REPLACE_LINE_ITEMS}.`, "/actions");
      }
      next.loadUnitLineItems = replacementItems(action.loadUnitLineItems);
    }
  } else {
    for (const k of PATCHABLE_FIELDS) {
      if (body[k] === null && k !== "customAttributes") delete next[k];
      else if (body[k] !== undefined) next[k] = body[k];
    }
    if (body.loadUnitLineItems === null) delete next.loadUnitLineItems;
    else if (body.loadUnitLineItems !== undefined)
      next.loadUnitLineItems = replacementItems(body.loadUnitLineItems);
  }
  return localizeLoadUnit(next as unknown as LoadUnit, undefined, c.defaultLocale);
}

/** Line items in the read shape (ids given by the client); ids must be unique within the unit. */
function replacementItems(v: Json | undefined): LoadUnitLineItem[] {
  const items = (Array.isArray(v) ? v : []).map((i) => obj(i) as unknown as LoadUnitLineItem);
  const ids = new Set<string>();
  for (const item of items) {
    if (ids.has(item.id)) {
      throw invalid(
        "DUPLICATE_LINE_ITEM_ID",
        `Line item id ${JSON.stringify(item.id)} appears twice.`,
        "/loadUnitLineItems",
      );
    }
    ids.add(item.id);
  }
  return items;
}

/**
 * UPDATE_LOAD_UNIT_LINE_ITEM_RECORDABLE_ATTRIBUTES: each update names a recordable attribute of one
 * of the unit's line items by id and overwrites the fields it gives (keyLocalized, group,
 * recordingRule, value). An id the unit does not have is a 400 and nothing changes.
 */
export function updateRecordableAttributes(unit: LoadUnit, action: JsonObject, c: ChangeContext): LoadUnit {
  if (action.name !== UPDATE_RECORDABLE_ATTRIBUTES) {
    throw invalid(
      "UNKNOWN_ACTION",
      `Unknown action ${JSON.stringify(action.name)}: the one action is ${UPDATE_RECORDABLE_ATTRIBUTES}.`,
      "/name",
    );
  }
  requireAvailable(unit);
  const updates = new Map<string, JsonObject>();
  for (const [i, u] of (Array.isArray(action.recordableAttributes)
    ? action.recordableAttributes
    : []
  ).entries()) {
    const update = obj(u) ?? {};
    const id = str(update.recordableAttributeId) ?? "";
    if (updates.has(id)) {
      throw invalid(
        "DUPLICATE_RECORDABLE_ATTRIBUTE",
        `Recordable attribute ${JSON.stringify(id)} is named twice.`,
        `/recordableAttributes/${i}`,
      );
    }
    updates.set(id, update);
  }
  const seen = new Set<string>();
  const items = (unit.loadUnitLineItems ?? []).map((item) => {
    if (!item.recordableAttributes) return item;
    return {
      ...item,
      recordableAttributes: item.recordableAttributes.map((a) => {
        const update = updates.get(a.id);
        if (!update) return a;
        seen.add(a.id);
        const next: RecordableAttribute = { ...a };
        if (update.keyLocalized !== undefined)
          next.keyLocalized = update.keyLocalized as Record<string, string>;
        if (update.group !== undefined) next.group = update.group as string | null;
        if (update.recordingRule !== undefined)
          next.recordingRule = update.recordingRule as RecordableAttribute["recordingRule"];
        if (update.value !== undefined) next.value = update.value as string | null;
        return next;
      }),
    };
  });
  for (const id of updates.keys()) {
    if (!seen.has(id)) {
      throw invalid(
        "RECORDABLE_ATTRIBUTE_NOT_FOUND",
        `Load unit ${unit.id} has no recordable attribute ${JSON.stringify(id)}.`,
        "/recordableAttributes",
      );
    }
  }
  return localizeLoadUnit({ ...touched(unit, c), loadUnitLineItems: items }, undefined, c.defaultLocale);
}

/**
 * Bulk soft delete (DELETE /api/loadunits?pickJobRef=&id=): which units become OBSOLETE, or why the
 * request cannot be applied. `found` are the named units that exist in the tenant (by id), or, with
 * no ids, every unit of the pick job. Rules, all-or-nothing:
 * - neither a pick job nor ids: 400 (nothing would be selected);
 * - an id naming no load unit of the tenant: 404;
 * - 422 (well-formed, but the instruction cannot be carried out): an id whose load unit does not
 *   belong to the named pick job, or that is OBSOLETE already;
 * - only a pick job: its AVAILABLE units (none is an empty answer, not an error).
 */
export function selectForBulkDelete(pickJobRef: string, ids: string[], found: LoadUnit[]): LoadUnit[] {
  if (!pickJobRef && ids.length === 0) {
    throw invalid(
      "NOTHING_SELECTED",
      "Name the load units to delete: pickJobRef, id, or both.",
      "pickJobRef",
    );
  }
  if (ids.length === 0) return found.filter((u) => u.status === "AVAILABLE");
  const byId = new Map(found.map((u) => [u.id, u]));
  const selected: LoadUnit[] = [];
  for (const id of new Set(ids)) {
    const unit = byId.get(id);
    if (!unit) return notFoundUnit(id);
    if (pickJobRef && !unit.pickJobRefs.includes(pickJobRef)) {
      throw precondition(
        "LOAD_UNIT_NOT_OF_PICK_JOB",
        `Load unit ${id} does not belong to pick job ${pickJobRef}: nothing was deleted.`,
      );
    }
    if (unit.status === "OBSOLETE") {
      throw precondition(
        "LOAD_UNIT_ALREADY_OBSOLETE",
        `Load unit ${id} is OBSOLETE already: nothing was deleted.`,
      );
    }
    selected.push(unit);
  }
  return selected;
}

function notFoundUnit(id: string): never {
  throw notFound("load unit", id);
}
