/**
 * The catalog's events. The spec names no event kinds for categories and facilities, so these are
 * ours: CATEGORY_CREATED/UPDATED/DELETED and FACILITY_CREATED/UPDATED/DELETED, with the entity after
 * the change as payload. A deletion counts as a change: its entityVersion is the last version + 1.
 */
import { create } from "@bufbuild/protobuf";
import type { DomainEvent } from "@fop/kit/events/envelope";
import { CategorySchema, FacilitySchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { Category } from "../domain/category.ts";
import type { Facility } from "../domain/facility.ts";
import { toCategoryMessage } from "../rpc/category.mapper.ts";
import { toFacilityMessage } from "../rpc/facility.mapper.ts";

export type Change = "CREATED" | "UPDATED" | "DELETED";

export function categoryEvent(change: Change, c: Category): DomainEvent {
  return {
    type: `CATEGORY_${change}`,
    entityType: "CATEGORY",
    entityRef: c.id,
    entityVersion: change === "DELETED" ? c.version + 1 : c.version,
    entityCreated: c.created,
    payload: { schema: CategorySchema, message: create(CategorySchema, toCategoryMessage(c)) },
  };
}

export function facilityEvent(change: Change, f: Facility): DomainEvent {
  return {
    type: `FACILITY_${change}`,
    entityType: "FACILITY",
    entityRef: f.id,
    entityVersion: change === "DELETED" ? f.version + 1 : f.version,
    entityCreated: f.created,
    payload: { schema: FacilitySchema, message: create(FacilitySchema, toFacilityMessage(f)) },
  };
}
