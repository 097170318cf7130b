import { defineEntity, p } from "@mikro-orm/core";

/** catalog.facility: the facility registry. */
export const FacilitySchema = defineEntity({
  name: "Facility",
  tableName: "facility",
  properties: {
    tenantId: p.string().primary(),
    id: p.uuid().primary(),
    version: p.integer().version(),
    created: p.datetime(3),
    lastModified: p.datetime(3),
    tenantFacilityId: p.string().nullable(),
    name: p.string(),
    type: p.string(),
    status: p.string(),
    locationType: p.string().nullable(),
    address: p.json<Record<string, unknown>>().nullable(),
    customAttributes: p.json<Record<string, unknown>>().nullable(),
    details: p.json<Record<string, unknown>>(),
  },
});

export class FacilityEntity extends FacilitySchema.class {}
FacilitySchema.setClass(FacilityEntity);
