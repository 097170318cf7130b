/**
 * The request context every call carries: tenant, principal, client and trace. The gateway derives
 * it from the verified token and sends it to services in headers; services read it back in the kit's
 * RPC interceptor. A service takes these headers from a platform component only (its bearer token
 * says which, rpc/auth.ts); an internal caller's token names its tenants and stands for its principal.
 */
import { createContextKey } from "@connectrpc/connect";
import { AppError } from "./errors.ts";

export interface Principal {
  /** Token subject. */
  readonly userId: string;
  /** Display/login name; personal data. */
  readonly username: string;
  readonly roles: readonly string[];
  /** Effective permissions (roles expanded). */
  readonly permissions: readonly string[];
}

export interface ClientInfo {
  /** REST, GRAPHQL or RPC. */
  readonly api: string;
  /** User-Agent / X-User-Agent as sent. */
  readonly rawInfo: string;
}

export interface RequestContext {
  readonly tenant: string;
  readonly principal: Principal;
  readonly client: ClientInfo;
  /** W3C trace id of the request ("" when tracing is off). */
  readonly traceId: string;
}

export const CONTEXT_HEADERS = {
  tenant: "x-fop-tenant",
  userId: "x-fop-user-id",
  username: "x-fop-username",
  roles: "x-fop-roles",
  permissions: "x-fop-permissions",
  clientApi: "x-fop-client-api",
  clientInfo: "x-fop-client-info",
} as const;

/** Tenant ids: what a tenant slug may look like (also keeps them safe in subjects and headers). */
export const TENANT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

const enc = (s: string) => encodeURIComponent(s);
const dec = (s: string | null) => (s ? decodeURIComponent(s) : "");

/** The principal's part of the headers, encoded once per principal object (tokens are cached). */
const encodedPrincipals = new WeakMap<Principal, Record<string, string>>();

function principalHeaders(p: Principal): Record<string, string> {
  let h = encodedPrincipals.get(p);
  if (!h) {
    h = {
      [CONTEXT_HEADERS.userId]: enc(p.userId),
      [CONTEXT_HEADERS.username]: enc(p.username),
      [CONTEXT_HEADERS.roles]: p.roles.map(enc).join(","),
      [CONTEXT_HEADERS.permissions]: p.permissions.map(enc).join(","),
    };
    encodedPrincipals.set(p, h);
  }
  return h;
}

/** Headers that carry `ctx` to another service (trace context travels separately, as traceparent). */
export function contextToHeaders(ctx: Omit<RequestContext, "traceId">): Record<string, string> {
  return {
    [CONTEXT_HEADERS.tenant]: ctx.tenant,
    ...principalHeaders(ctx.principal),
    [CONTEXT_HEADERS.clientApi]: ctx.client.api,
    [CONTEXT_HEADERS.clientInfo]: enc(ctx.client.rawInfo.slice(0, 512)),
  };
}

/** Decoded role / permission lists by header value: the same few principals call again and again. */
const decodedLists = new Map<string, readonly string[]>();
const DECODED_LISTS_MAX = 1000;

function decodeList(raw: string | null): readonly string[] {
  if (!raw) return [];
  let list = decodedLists.get(raw);
  if (!list) {
    list = Object.freeze(
      raw
        .split(",")
        .filter((s) => s !== "")
        .map(dec),
    );
    if (decodedLists.size >= DECODED_LISTS_MAX) decodedLists.clear();
    decodedLists.set(raw, list);
  }
  return list;
}

/** Reads the context sent by {@link contextToHeaders}; a call without a valid tenant is rejected. */
export function contextFromHeaders(h: Headers, traceId: string): RequestContext {
  const tenant = h.get(CONTEXT_HEADERS.tenant) ?? "";
  if (!TENANT_PATTERN.test(tenant)) {
    throw new AppError("unauthenticated", {
      code: "TENANT_MISSING",
      description: `RPC calls must carry a valid ${CONTEXT_HEADERS.tenant} header.`,
    });
  }
  const list = (name: string) => decodeList(h.get(name));
  return {
    tenant,
    principal: {
      userId: dec(h.get(CONTEXT_HEADERS.userId)),
      username: dec(h.get(CONTEXT_HEADERS.username)),
      roles: list(CONTEXT_HEADERS.roles),
      permissions: list(CONTEXT_HEADERS.permissions),
    },
    client: {
      api: h.get(CONTEXT_HEADERS.clientApi) ?? "RPC",
      rawInfo: dec(h.get(CONTEXT_HEADERS.clientInfo)),
    },
    traceId,
  };
}

/** The client description a caller sent: x-fop-client-info, else its User-Agent (at most 512 characters). */
export function clientInfo(h: Headers): string {
  const info = h.get(CONTEXT_HEADERS.clientInfo);
  return (info ? dec(info) : (h.get("user-agent") ?? "")).slice(0, 512);
}

/** Where the kit's server interceptor puts the context for handlers (`handlerContext.values`). */
export const requestContextKey = createContextKey<RequestContext | undefined>(undefined, {
  description: "fop request context",
});
