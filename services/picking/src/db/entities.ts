import { defineEntity, p } from "@mikro-orm/core";

/**
 * picking.pick_job / picking.pick_run as the ORM sees them. The use cases read and write these tables
 * with plain parameterised SQL (one statement per step, no unit of work): a job is a document plus
 * derived index columns, and the hot paths (create, get, act) stay a single round trip each.
 */
export const PickJobSchema = defineEntity({
  name: "PickJobRow",
  tableName: "pick_job",
  properties: {
    tenantId: p.string().primary(),
    id: p.uuid().primary(),
    version: p.integer(),
    created: p.datetime(3),
    lastModified: p.datetime(3),
    status: p.string(),
    facilityRef: p.string(),
    doc: p.json<Record<string, unknown>>(),
  },
});

export const PickRunSchema = defineEntity({
  name: "PickRunRow",
  tableName: "pick_run",
  properties: {
    tenantId: p.string().primary(),
    id: p.uuid().primary(),
    version: p.integer(),
    created: p.datetime(3),
    lastModified: p.datetime(3),
    status: p.string(),
    facilityRef: p.string(),
    doc: p.json<Record<string, unknown>>(),
    lineSources: p.json<Record<string, unknown>>(),
  },
});
