import type { Client } from "@connectrpc/connect";
import type { AuditService } from "@fop/proto/fop/audit/v1/audit_pb.js";
import type { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import type { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import type { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import type { ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";

/** Typed Connect clients of the services the gateway routes to. */
export interface Clients {
  catalog: Client<typeof CatalogService>;
  audit: Client<typeof AuditService>;
  picking: Client<typeof PickingService>;
  loadunits: Client<typeof LoadUnitsService>;
  carriers: Client<typeof CarriersService>;
  returns: Client<typeof ReturnsService>;
  notifications: Client<typeof NotificationsService>;
  /** The same service over a transport that can stream (the live notification stream). */
  notificationsLive: Client<typeof NotificationsService>;
}

export interface RouteDeps {
  clients: Clients;
  /** Base URL for Location headers ("" = relative). */
  publicUrl: string;
}
