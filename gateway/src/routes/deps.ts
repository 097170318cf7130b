import type { Client } from "@connectrpc/connect";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { AuditService } from "@fop/proto/fop/audit/v1/audit_pb.js";
import type { CarriersService } from "@fop/proto/fop/carriers/v1/carriers_pb.js";
import type { CatalogService } from "@fop/proto/fop/catalog/v1/catalog_pb.js";
import type { LoadUnitsService } from "@fop/proto/fop/loadunits/v1/loadunits_pb.js";
import type { NotificationsService } from "@fop/proto/fop/notifications/v1/notifications_pb.js";
import type { PickingService } from "@fop/proto/fop/picking/v1/picking_pb.js";
import type { ReturnsService } from "@fop/proto/fop/returns/v1/returns_pb.js";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";

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

/**
 * TypeBox's type provider for what a route reads: `req.params`, `req.query` and `req.body` get the
 * static type of the route's schema (TypeBoxTypeProvider's validator side). Replies stay as untyped
 * as before: most handlers send the service's document bytes (documents.ts), and the ones that map
 * RPC messages to objects produce optional fields (`string | undefined`) where the response schema
 * says required; typing them is a change of those mappings, not of the routes.
 */
export interface RequestTypeProvider extends FastifyTypeProvider {
  validator: ValidatorType<TypeBoxTypeProvider, this["schema"]>;
}

/** What provider `P` makes of schema `S` on the request side (fastify's CallValidatorTypeProvider). */
type ValidatorType<P extends FastifyTypeProvider, S> = (P & { schema: S })["validator"];

/**
 * The `locale` query parameter of a route table entry declared for several variants of which only
 * some have a querystring schema (`...(cond ? { querystring } : {})` leaves the provider nothing to
 * type); "" when there is none.
 */
export const localeOf = ({ query }: { query: unknown }): string =>
  query && typeof query === "object" && "locale" in query ? String(query.locale) : "";

/** The app as the route tables see it: requests typed from each route's schemas, no casts needed. */
export type RouteApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  RequestTypeProvider
>;
