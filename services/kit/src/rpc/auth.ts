/**
 * Who calls a service, and for which tenant. Every RPC but health checks and server reflection
 * carries `Authorization: Bearer <token>`, a JWT (HS256) signed with the cluster's RPC key
 * (`RPC_AUTH_KEY`, a Kubernetes Secret every component of the platform mounts). A call without a
 * valid token is refused with UNAUTHENTICATED before any handler runs. Tokens come in two kinds:
 *
 * - **component** (the gateway, a service calling another): minted by the process itself from the
 *   key, short-lived (15 min) and renewed in the background of its calls. A component acts for any
 *   tenant and relays the end user's context (the `x-fop-*` headers, context.ts), which the gateway
 *   derived from the user's verified bearer token.
 * - **caller** (an internal team's program calling a service directly): minted by an operator with
 *   `npm run rpc-token -- --caller <name> --tenants <a,b>`. It names the tenants it may act for:
 *   `x-fop-tenant` must be one of them (and may be left out when it names one). The principal the
 *   service records (audit) is the token's subject; a caller's `x-fop-*` principal headers are
 *   ignored.
 *
 * Rotation: verification also accepts the keys in `RPC_AUTH_KEYS_ACCEPTED` (the next key before any
 * pod signs with it, the previous one until every pod signs with the new); each token's `kid` names
 * the key that signed it (a hash prefix, never the key). deploy/RUNBOOK.md has the steps.
 */
import { createHash } from "node:crypto";
import type { Interceptor } from "@connectrpc/connect";
import { type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { VarSpec } from "../config.ts";
import {
  CONTEXT_HEADERS,
  clientInfo,
  contextFromHeaders,
  type RequestContext,
  TENANT_PATTERN,
} from "../context.ts";
import { AppError } from "../errors.ts";

const ISSUER = "fop-rpc";
const AUDIENCE = "fop-rpc";
const ALG = "HS256";
/** Lifetime of a component's own token, and how long before its expiry it is renewed. */
const COMPONENT_TOKEN_S = 15 * 60;
const COMPONENT_RENEW_S = 5 * 60;
/** Longest lifetime of a caller token; a leaked one is revoked by rotating the key. */
export const CALLER_TOKEN_MAX_S = 90 * 24 * 3600;
const CLOCK_SKEW_S = 30;
const MIN_KEY_LENGTH = 32;

/** The keys of a comma-separated list. */
const splitKeys = (raw: string) =>
  raw
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);

/** The environment of every process that calls or serves RPCs. */
export const rpcAuthConfig = {
  RPC_AUTH_KEY: {
    parse: (raw: string) => {
      if (raw.trim().length < MIN_KEY_LENGTH)
        throw new Error(`must be at least ${MIN_KEY_LENGTH} characters long`);
      return raw.trim();
    },
    description:
      "the cluster's RPC key (at least 32 characters, e.g. `openssl rand -base64 32`): signs and verifies the tokens of components and internal callers",
  } satisfies VarSpec<string>,
  RPC_AUTH_KEYS_ACCEPTED: {
    parse: (raw: string) => {
      if (splitKeys(raw).some((k) => k.length < MIN_KEY_LENGTH))
        throw new Error(`every key must be at least ${MIN_KEY_LENGTH} characters long`);
      return raw;
    },
    fallback: "",
    description:
      "further keys whose tokens are accepted, never used to sign: the next or the previous key while a rotation rolls out (comma-separated; empty: none)",
  } satisfies VarSpec<string>,
};

export type RpcCallerKind = "component" | "caller";

/** A verified token. */
export interface RpcCaller {
  readonly kind: RpcCallerKind;
  /** Who: a component's name or the caller's. */
  readonly subject: string;
  /** The tenants a caller may act for (a component: every tenant, `undefined`). */
  readonly tenants: readonly string[] | undefined;
}

interface Key {
  readonly id: string;
  readonly secret: Uint8Array;
}

/** The current key (signs and verifies) and the further accepted ones (verify only). */
export interface RpcKeys {
  readonly current: Key;
  readonly accepted: ReadonlyMap<string, Key>;
}

const keyOf = (raw: string): Key => {
  const secret = new TextEncoder().encode(raw);
  return { id: createHash("sha256").update(secret).digest("hex").slice(0, 12), secret };
};

/** Parses RPC_AUTH_KEY and RPC_AUTH_KEYS_ACCEPTED; a key shorter than 32 characters is refused. */
export function rpcKeys(config: { RPC_AUTH_KEY: string; RPC_AUTH_KEYS_ACCEPTED?: string }): RpcKeys {
  const raw = [config.RPC_AUTH_KEY, ...splitKeys(config.RPC_AUTH_KEYS_ACCEPTED ?? "")];
  for (const k of raw) {
    if (k.trim().length < MIN_KEY_LENGTH)
      throw new Error(`RPC auth keys must be at least ${MIN_KEY_LENGTH} characters long`);
  }
  const keys = raw.map((k) => keyOf(k.trim()));
  return { current: keys[0]!, accepted: new Map(keys.map((k) => [k.id, k])) };
}

/** Signs a token with the current key. */
export async function signRpcToken(
  keys: RpcKeys,
  claims: { subject: string; kind: RpcCallerKind; tenants?: readonly string[]; expiresInS: number },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    fop_kind: claims.kind,
    ...(claims.kind === "caller" ? { tenants: [...(claims.tenants ?? [])] } : {}),
  })
    .setProtectedHeader({ alg: ALG, kid: keys.current.id, typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + claims.expiresInS)
    .sign(keys.current.secret);
}

/** Mints a caller token (the `npm run rpc-token` script), checking what it names. */
export async function signCallerToken(
  keys: RpcKeys,
  c: { caller: string; tenants: readonly string[]; expiresInS: number },
): Promise<string> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/.test(c.caller))
    throw new Error("the caller name must be 1-128 letters, digits or . _ : @ -");
  if (c.tenants.length === 0) throw new Error("a caller token names at least one tenant");
  const bad = c.tenants.find((t) => !TENANT_PATTERN.test(t));
  if (bad !== undefined) throw new Error(`not a tenant id: ${JSON.stringify(bad)}`);
  if (!Number.isInteger(c.expiresInS) || c.expiresInS < 60 || c.expiresInS > CALLER_TOKEN_MAX_S)
    throw new Error(`the lifetime must be between 60 and ${CALLER_TOKEN_MAX_S} seconds`);
  return signRpcToken(keys, {
    subject: c.caller,
    kind: "caller",
    tenants: c.tenants,
    expiresInS: c.expiresInS,
  });
}

/** What a client sends: the bearer token for its next call. */
export type RpcCredentials = () => Promise<string>;

/**
 * A component's own credentials: a token naming `name`, minted on first use and renewed once less
 * than five minutes of it remain (the renewal happens on a call; the old token is still valid).
 */
export function componentCredentials(keys: RpcKeys, name: string): RpcCredentials {
  let token: Promise<string> | undefined;
  let renewAt = 0;
  return () => {
    const now = Date.now();
    if (!token || now >= renewAt) {
      renewAt = now + (COMPONENT_TOKEN_S - COMPONENT_RENEW_S) * 1000;
      const next = signRpcToken(keys, { subject: name, kind: "component", expiresInS: COMPONENT_TOKEN_S });
      next.catch(() => {
        renewAt = 0; // try again on the next call
      });
      token = next;
    }
    return token;
  };
}

/** Client interceptor: the credentials' token as `Authorization: Bearer`. Works with any Connect transport. */
export function bearerInterceptor(credentials: RpcCredentials): Interceptor {
  return (next) => async (req) => {
    req.header.set("authorization", `Bearer ${await credentials()}`);
    return next(req);
  };
}

const unauthenticated = (code: string, description: string) =>
  new AppError("unauthenticated", { code, description });

/** Reads and checks a token; verified tokens are remembered (same string, same answer) until they expire. */
export type RpcTokenVerifier = (authorization: string | null) => Promise<RpcCaller>;

export function rpcTokenVerifier(keys: RpcKeys): RpcTokenVerifier {
  const cache = new Map<string, { caller: RpcCaller; expiresAt: number }>();
  const CACHE_MAX = 10_000;
  return async (authorization) => {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (!token) {
      throw unauthenticated(
        "RPC_TOKEN_MISSING",
        "Calls to a service must carry `Authorization: Bearer <token>` (see the README, Calling the services directly).",
      );
    }
    const hit = cache.get(token);
    if (hit && hit.expiresAt > Date.now()) return hit.caller;
    if (hit) cache.delete(token);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          const key = header.kid === undefined ? undefined : keys.accepted.get(header.kid);
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key.secret;
        },
        {
          issuer: ISSUER,
          audience: AUDIENCE,
          algorithms: [ALG],
          clockTolerance: CLOCK_SKEW_S,
          requiredClaims: ["exp", "iat", "sub"],
        },
      ));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired)
        throw unauthenticated("RPC_TOKEN_EXPIRED", "The token has expired.");
      throw unauthenticated("RPC_TOKEN_INVALID", "The token was not issued for this platform's services.");
    }
    const caller = callerOf(payload);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(token, { caller, expiresAt: payload.exp! * 1000 });
    return caller;
  };
}

function callerOf(p: JWTPayload): RpcCaller {
  const lifetime = p.exp! - p.iat!;
  if (p.fop_kind === "component") {
    if (lifetime > COMPONENT_TOKEN_S)
      throw unauthenticated("RPC_TOKEN_INVALID", "A component token lives at most 15 minutes.");
    return { kind: "component", subject: p.sub!, tenants: undefined };
  }
  if (p.fop_kind === "caller") {
    const tenants = p.tenants;
    if (
      !Array.isArray(tenants) ||
      tenants.length === 0 ||
      !tenants.every((t) => typeof t === "string" && TENANT_PATTERN.test(t))
    )
      throw unauthenticated("RPC_TOKEN_INVALID", "A caller token must name its tenants.");
    if (lifetime > CALLER_TOKEN_MAX_S)
      throw unauthenticated(
        "RPC_TOKEN_INVALID",
        `A caller token lives at most ${CALLER_TOKEN_MAX_S} seconds.`,
      );
    return { kind: "caller", subject: p.sub!, tenants: Object.freeze([...tenants] as string[]) };
  }
  throw unauthenticated("RPC_TOKEN_INVALID", "The token names no caller kind.");
}

/**
 * The request context of a call from `caller`: a component's relayed context, or, for a caller
 * token, the tenant it names (checked against the token) with the token's subject as principal.
 */
export function callContext(caller: RpcCaller, h: Headers, traceId: string): RequestContext {
  if (caller.kind === "component") return contextFromHeaders(h, traceId);
  const tenants = caller.tenants ?? [];
  const asked = h.get(CONTEXT_HEADERS.tenant);
  const tenant = asked ?? (tenants.length === 1 ? tenants[0]! : "");
  if (!tenant) {
    throw new AppError("unauthenticated", {
      code: "TENANT_MISSING",
      description: `This token names several tenants: send the one the call is for as ${CONTEXT_HEADERS.tenant}.`,
    });
  }
  if (!tenants.includes(tenant)) {
    throw new AppError("forbidden", {
      code: "TENANT_NOT_GRANTED",
      description: `The token of ${caller.subject} does not name tenant ${JSON.stringify(tenant)}.`,
    });
  }
  return {
    tenant,
    principal: { userId: caller.subject, username: caller.subject, roles: [], permissions: [] },
    // What the caller says it is (informational, as a User-Agent is): x-fop-client-info, else its User-Agent.
    client: { api: "RPC", rawInfo: clientInfo(h) },
    traceId,
  };
}
