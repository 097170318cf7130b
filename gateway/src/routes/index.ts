/** Every resource's routes, registered explicitly (no autoload). */
import type { FastifyInstance } from "fastify";
import { auditRoutes } from "./audits/index.ts";
import { carrierRoutes } from "./carriers/index.ts";
import { categoryRoutes } from "./categories/index.ts";
import type { RequestTypeProvider, RouteDeps } from "./deps.ts";
import { facilityRoutes } from "./facilities/index.ts";
import { facilityGroupRoutes } from "./facilitygroups/index.ts";
import { handoverRoutes } from "./handover/index.ts";
import { itemReturnRoutes } from "./itemreturns/index.ts";
import { loadUnitRoutes } from "./loadunits/index.ts";
import { notificationRoutes } from "./notifications/index.ts";
import { pickingConfigurationRoutes } from "./pickingconfig/index.ts";
import { pickJobRoutes } from "./pickjobs/index.ts";
import { pickRunRoutes } from "./pickruns/index.ts";
import { reasonRoutes } from "./reasons/index.ts";
import { subscriptionRoutes } from "./subscriptions/index.ts";

export function registerRoutes(fastify: FastifyInstance, deps: RouteDeps): void {
  const app = fastify.withTypeProvider<RequestTypeProvider>();
  categoryRoutes(app, deps);
  facilityGroupRoutes(app, deps);
  facilityRoutes(app, deps);
  auditRoutes(app, deps);
  pickJobRoutes(app, deps);
  pickRunRoutes(app, deps);
  pickingConfigurationRoutes(app, deps);
  loadUnitRoutes(app, deps);
  carrierRoutes(app, deps);
  reasonRoutes(app, deps);
  itemReturnRoutes(app, deps);
  handoverRoutes(app, deps);
  notificationRoutes(app, deps);
  subscriptionRoutes(app, deps);
}
