import type { Permission } from "@fop/contracts/permissions";
import type { RequestContext } from "@fop/kit/context";
import type { ClientApp } from "../client-agent.ts";

export type Lifecycle = "alpha" | "beta" | "GA" | "deprecated";

/** A path parameter that accepts `urn:fft:<entity>:<field>:<value>` in place of the id. */
export interface UrnParam {
  param: string;
  entity: string;
  field: string;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Tenant, principal and client of an authenticated request (set by the auth hook). */
    ctx: Omit<RequestContext, "traceId">;
    /** The app a well-formed X-User-Agent names (client-agent.ts). */
    clientApp?: ClientApp;
  }
  interface FastifyContextConfig {
    /** Permissions the caller needs (all of them). */
    permissions?: readonly Permission[];
    /** Lifecycle status shown in the OpenAPI document; deprecated routes send a Deprecation header. */
    lifecycle?: Lifecycle;
    /** For deprecated routes: the replacement, sent as Link: <...>; rel="successor-version". */
    replacement?: string;
    /** Path parameters that accept URNs. */
    urn?: readonly UrnParam[];
    /** false: no token needed (health, docs). */
    auth?: boolean;
    /** true: the response stays open (an event stream); load shedding does not count it. */
    stream?: boolean;
  }
}
