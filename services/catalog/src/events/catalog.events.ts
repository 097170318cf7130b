/**
 * The catalog's events. The spec names no event kinds for categories and facilities, so these are
 * ours: CATEGORY_CREATED/UPDATED/DELETED and FACILITY_CREATED/UPDATED/DELETED; facility groups emit
 * the platform's FACILITY_GROUP_CREATED/UPDATED/DELETED. Each carries the entity after the change. A deletion counts as a change: its entityVersion is the last version + 1.
 */
import { create } from "@bufbuild/protobuf";
import type { DomainEvent } from "@fop/kit/events/envelope";
import { CategorySchema, FacilityGroupSchema, FacilitySchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { Category } from "../domain/category.ts";
import type { Facility } from "../domain/facility.ts";
import type { FacilityGroup } from "../domain/facility-group.ts";
import { toCategoryMessage } from "../rpc/category.mapper.ts";
import { toFacilityMessage } from "../rpc/facility.mapper.ts";
import { toFacilityGroupMessage } from "../rpc/facility-group.mapper.ts";

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

export function facilityGroupEvent(change: Change, g: FacilityGroup, defaultLocale: string): DomainEvent {
  return {
    type: `FACILITY_GROUP_${change}`,
    entityType: "FACILITY_GROUP",
    entityRef: g.id,
    entityVersion: change === "DELETED" ? g.version + 1 : g.version,
    entityCreated: g.created,
    payload: {
      schema: FacilityGroupSchema,
      message: create(FacilityGroupSchema, toFacilityGroupMessage(g, defaultLocale)),
    },
  };
}
