import type { Client } from "@connectrpc/connect";
import type { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";

/** Typed Connect clients of the services the gateway routes to. */
export interface Clients {
  catalog: Client<typeof CatalogService>;
}

export interface RouteDeps {
  clients: Clients;
  /** Base URL for Location headers ("" = relative). */
  publicUrl: string;
}
