/**
 * The catalog's events. The spec names no event kinds for categories and facilities, so these are
 * ours: CATEGORY_CREATED/UPDATED/DELETED and FACILITY_CREATED/UPDATED/DELETED; facility groups emit
 * the platform's FACILITY_GROUP_CREATED/UPDATED/DELETED. Each carries the entity after the change. A deletion counts as a change: its entityVersion is the last version + 1.
 */
import { type DomainEvent, entityEvent } from "@fop/kit/events/envelope";
import { CategorySchema, FacilityGroupSchema, FacilitySchema } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { Category } from "../domain/category.ts";
import type { Facility } from "../domain/facility.ts";
import type { FacilityGroup } from "../domain/facility-group.ts";
import { toCategoryMessage } from "../rpc/category.mapper.ts";
import { toFacilityMessage } from "../rpc/facility.mapper.ts";
import { toFacilityGroupMessage } from "../rpc/facility-group.mapper.ts";

export type Change = "CREATED" | "UPDATED" | "DELETED";

const deleted = (change: Change) => ({ deleted: change === "DELETED" });

export const categoryEvent = (change: Change, c: Category): DomainEvent =>
  entityEvent(
    `CATEGORY_${change}`,
    "CATEGORY",
    c,
    { schema: CategorySchema, message: toCategoryMessage(c) },
    deleted(change),
  );

export const facilityEvent = (change: Change, f: Facility): DomainEvent =>
  entityEvent(
    `FACILITY_${change}`,
    "FACILITY",
    f,
    { schema: FacilitySchema, message: toFacilityMessage(f) },
    deleted(change),
  );

export const facilityGroupEvent = (change: Change, g: FacilityGroup, defaultLocale: string): DomainEvent =>
  entityEvent(
    `FACILITY_GROUP_${change}`,
    "FACILITY_GROUP",
    g,
    { schema: FacilityGroupSchema, message: toFacilityGroupMessage(g, defaultLocale) },
    deleted(change),
  );
