/**
 * Bearer tokens: verification (OIDC issuer's JWKS in production, a local key in development) and the
 * claims -> principal mapping. `npm run token` signs with the same local key.
 */
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TENANT_PATTERN } from "@fop/kit/context";
import { AppError } from "@fop/kit/errors";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import { effectivePermissions } from "./permissions.ts";

export const DEV_ISSUER = "fop-dev";
export const DEV_AUDIENCE = "fop";
const DEV_ALG = "ES256";

interface DevKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Reads the local signing key, creating it (mode 600) on first use. */
export async function loadOrCreateDevKey(file: string): Promise<DevKey> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as DevKey;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const { privateKey, publicKey } = await generateKeyPair(DEV_ALG, { extractable: true });
  const kid = `dev-${Date.now().toString(36)}`;
  const key: DevKey = {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg: DEV_ALG, use: "sig" },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg: DEV_ALG, use: "sig" },
  };
  mkdirSync(path.dirname(file), { recursive: true });
  // Written whole under a name of this process's, then linked into place: the link fails if the file
  // exists, and a reader never sees it half-written (several gateway processes and `npm run token`
  // can start at once: npm start --replicas).
  const partial = `${file}.${process.pid}.${Date.now().toString(36)}`;
  writeFileSync(partial, JSON.stringify(key, null, 2), { flag: "wx", mode: 0o600 });
  try {
    linkSync(partial, file);
    return key;
  } catch (err) {
    // Created concurrently: use that one.
    if ((err as NodeJS.ErrnoException).code === "EEXIST")
      return JSON.parse(readFileSync(file, "utf8")) as DevKey;
    throw err;
  } finally {
    rmSync(partial, { force: true });
  }
}

export interface TokenClaims {
  tenant: string;
  sub: string;
  username?: string;
  roles?: string[];
  permissions?: string[];
  /** Lifetime in seconds (default 12 h). */
  expiresIn?: number;
}

/** Signs a development token with the local key. */
export async function signDevToken(file: string, c: TokenClaims): Promise<string> {
  const key = await loadOrCreateDevKey(file);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    tenant: c.tenant,
    preferred_username: c.username ?? c.sub,
    roles: c.roles ?? [],
    permissions: c.permissions ?? [],
  })
    .setProtectedHeader({ alg: DEV_ALG, kid: key.privateJwk.kid!, typ: "JWT" })
    .setSubject(c.sub)
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (c.expiresIn ?? 12 * 3600))
    .sign(await importJWK(key.privateJwk, DEV_ALG));
}

export interface VerifierOptions {
  jwksUrl?: string | undefined;
  issuer?: string | undefined;
  audience?: string | undefined;
  devKeyFile: string;
  tenantClaim: string;
  /** Longest accepted lifetime (exp - iat, or exp - now without iat), seconds. */
  maxLifetimeS: number;
  /** Clock skew tolerated between the issuer and us, seconds. */
  clockSkewS: number;
}

/**
 * Time rules on top of the signature check: `exp` is required, a token may live at most
 * `maxLifetimeS` (from `iat`, else from now), and `iat` may lie at most `clockSkewS` in the future.
 */
export function checkTokenTimes(
  p: JWTPayload,
  opts: Pick<VerifierOptions, "maxLifetimeS" | "clockSkewS">,
  nowS = Math.floor(Date.now() / 1000),
): void {
  if (typeof p.exp !== "number") throw unauthenticated("INVALID_TOKEN", "The token has no expiry (exp).");
  if (typeof p.iat === "number" && p.iat > nowS + opts.clockSkewS) {
    throw unauthenticated("INVALID_TOKEN", "The token's issue time (iat) lies in the future.");
  }
  const issued = typeof p.iat === "number" ? Math.min(p.iat, nowS) : nowS;
  if (p.exp - issued > opts.maxLifetimeS) {
    throw unauthenticated(
      "TOKEN_LIFETIME_TOO_LONG",
      `Tokens may be valid for at most ${opts.maxLifetimeS} seconds; this one is valid for ${p.exp - issued}.`,
    );
  }
}

export interface Principal {
  tenant: string;
  userId: string;
  username: string;
  roles: string[];
  permissions: string[];
}

const unauthenticated = (code: string, description: string) =>
  new AppError("unauthenticated", { code, description });

const strings = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.filter((x): x is string => typeof x === "string")
    : typeof v === "string"
      ? v.split(/[ ,]+/).filter(Boolean)
      : [];

/** Claims -> principal. The tenant comes from `tenantClaim` or, for Identity Platform tokens, firebase.tenant. */
export function principalFromClaims(p: JWTPayload, tenantClaim: string): Principal {
  const firebase = p.firebase as { tenant?: unknown } | undefined;
  const tenant = p[tenantClaim] ?? firebase?.tenant;
  if (typeof tenant !== "string" || !TENANT_PATTERN.test(tenant)) {
    throw unauthenticated("TENANT_MISSING", `The token carries no valid tenant (claim "${tenantClaim}").`);
  }
  if (!p.sub) throw unauthenticated("SUBJECT_MISSING", "The token has no subject.");
  const roles = strings(p.roles);
  const username =
    [p.preferred_username, p.username, p.email, p.name].find((x): x is string => typeof x === "string") ??
    p.sub;
  return {
    tenant,
    userId: p.sub,
    username,
    roles,
    permissions: effectivePermissions(roles, strings(p.permissions)),
  };
}

/** Builds the token verifier: JWKS when configured, else the local development key. */
export async function createVerifier(opts: VerifierOptions): Promise<(token: string) => Promise<Principal>> {
  let verify: (token: string) => Promise<JWTPayload>;
  if (opts.jwksUrl) {
    const jwks = createRemoteJWKSet(new URL(opts.jwksUrl), {
      cooldownDuration: 30_000,
      timeoutDuration: 5_000,
    });
    verify = async (t) =>
      (
        await jwtVerify(t, jwks, {
          issuer: opts.issuer,
          audience: opts.audience,
          clockTolerance: opts.clockSkewS,
          requiredClaims: ["exp"],
        })
      ).payload;
  } else {
    const key = await loadOrCreateDevKey(opts.devKeyFile);
    const jwks = createLocalJWKSet({ keys: [key.publicJwk] });
    verify = async (t) =>
      (
        await jwtVerify(t, jwks, {
          issuer: DEV_ISSUER,
          audience: DEV_AUDIENCE,
          algorithms: [DEV_ALG],
          clockTolerance: opts.clockSkewS,
          requiredClaims: ["exp"],
        })
      ).payload;
  }
  // Verified tokens are remembered until they expire: an ES256 verification per request is a
  // noticeable share of the gateway's CPU, and the same bearer string always verifies the same way.
  const cache = new Map<string, { principal: Principal; expiresAt: number }>();
  const CACHE_MAX = 10_000;
  return async (token) => {
    const hit = cache.get(token);
    if (hit && hit.expiresAt > Date.now()) return hit.principal;
    if (hit) cache.delete(token);
    let payload: JWTPayload;
    try {
      payload = await verify(token);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "ERR_JWT_EXPIRED") throw unauthenticated("TOKEN_EXPIRED", "The token has expired.");
      if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && (err as { claim?: string }).claim === "exp")
        throw unauthenticated("INVALID_TOKEN", "The token has no expiry (exp).");
      throw unauthenticated("INVALID_TOKEN", "The token is not valid for this API instance.");
    }
    checkTokenTimes(payload, opts);
    const principal = principalFromClaims(payload, opts.tenantClaim);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(token, { principal, expiresAt: Math.min(payload.exp! * 1000, Date.now() + 5 * 60_000) });
    return principal;
  };
}
