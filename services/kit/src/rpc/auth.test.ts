import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { CONTEXT_HEADERS, contextToHeaders } from "../context.ts";
import { AppError } from "../errors.ts";
import {
  CALLER_TOKEN_MAX_S,
  callContext,
  componentCredentials,
  rpcAuthConfig,
  rpcKeys,
  rpcTokenVerifier,
  signCallerToken,
  signRpcToken,
} from "./auth.ts";

const KEY_A = "key-a-0123456789abcdef0123456789abcdef";
const KEY_B = "key-b-0123456789abcdef0123456789abcdef";
const a = rpcKeys({ RPC_AUTH_KEY: KEY_A });
const b = rpcKeys({ RPC_AUTH_KEY: KEY_B });

/** The AppError `p` rejects with, as kind and code. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.unreachable(),
    (e: unknown) => {
      expect(e).toBeInstanceOf(AppError);
      return { kind: (e as AppError).kind, code: (e as AppError).code };
    },
  );
const bearer = (t: string) => `Bearer ${t}`;

describe("RPC tokens", () => {
  it("a component token verifies with the same key, and names its component", async () => {
    const token = await componentCredentials(a, "gateway")();
    await expect(rpcTokenVerifier(a)(bearer(token))).resolves.toEqual({
      kind: "component",
      subject: "gateway",
      tenants: undefined,
    });
  });

  it("refuses a missing header, another scheme, a token of another key, an expired one and garbage", async () => {
    const verify = rpcTokenVerifier(a);
    expect(await failure(verify(null))).toEqual({ kind: "unauthenticated", code: "RPC_TOKEN_MISSING" });
    const token = await componentCredentials(a, "gateway")();
    expect(await failure(verify(`Basic ${token}`))).toMatchObject({ code: "RPC_TOKEN_MISSING" });
    expect(await failure(verify(bearer(await componentCredentials(b, "gateway")())))).toEqual({
      kind: "unauthenticated",
      code: "RPC_TOKEN_INVALID",
    });
    const expired = await signRpcToken(a, { subject: "gateway", kind: "component", expiresInS: -120 });
    expect(await failure(verify(bearer(expired)))).toMatchObject({ code: "RPC_TOKEN_EXPIRED" });
    expect(await failure(verify(bearer("not.a.jwt")))).toMatchObject({ code: "RPC_TOKEN_INVALID" });
  });

  it("refuses a token signed with the key but not as ours: other issuer, no kind, alg none, too long-lived", async () => {
    const verify = rpcTokenVerifier(a);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>, opts: { iss?: string; exp?: number } = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid: a.current.id })
        .setIssuer(opts.iss ?? "fop-rpc")
        .setAudience("fop-rpc")
        .setSubject("x")
        .setIssuedAt(now)
        .setExpirationTime(opts.exp ?? now + 60)
        .sign(a.current.secret);
    for (const token of [
      await sign({ fop_kind: "component" }, { iss: "someone-else" }),
      await sign({}),
      await sign({ fop_kind: "admin" }),
      await sign({ fop_kind: "component" }, { exp: now + 16 * 60 }),
      await sign({ fop_kind: "caller", tenants: [] }),
      await sign({ fop_kind: "caller", tenants: ["ok", "not a tenant!"] }),
      await sign({ fop_kind: "caller", tenants: ["t"] }, { exp: now + CALLER_TOKEN_MAX_S + 60 }),
    ])
      expect(await failure(verify(bearer(token)))).toMatchObject({ code: "RPC_TOKEN_INVALID" });
    const header = Buffer.from(JSON.stringify({ alg: "none", kid: a.current.id })).toString("base64url");
    const body = Buffer.from(
      JSON.stringify({
        iss: "fop-rpc",
        aud: "fop-rpc",
        sub: "x",
        iat: now,
        exp: now + 60,
        fop_kind: "component",
      }),
    ).toString("base64url");
    expect(await failure(verify(bearer(`${header}.${body}.`)))).toMatchObject({ code: "RPC_TOKEN_INVALID" });
  });

  it("rotation: a key in RPC_AUTH_KEYS_ACCEPTED verifies but never signs", async () => {
    const during = rpcKeys({ RPC_AUTH_KEY: KEY_A, RPC_AUTH_KEYS_ACCEPTED: ` ${KEY_B} ` });
    const verify = rpcTokenVerifier(during);
    await expect(verify(bearer(await componentCredentials(b, "picking")()))).resolves.toMatchObject({
      subject: "picking",
    });
    await expect(verify(bearer(await componentCredentials(a, "picking")()))).resolves.toMatchObject({
      subject: "picking",
    });
    const signed = await componentCredentials(during, "gateway")();
    await expect(rpcTokenVerifier(a)(bearer(signed))).resolves.toMatchObject({ subject: "gateway" });
    expect(await failure(rpcTokenVerifier(b)(bearer(signed)))).toMatchObject({ code: "RPC_TOKEN_INVALID" });
  });

  it("keys shorter than 32 characters are refused, in the config and in rpcKeys", () => {
    expect(() => rpcAuthConfig.RPC_AUTH_KEY.parse("short")).toThrow(/at least 32/);
    expect(() => rpcAuthConfig.RPC_AUTH_KEYS_ACCEPTED.parse(`${KEY_B}, short`)).toThrow(/at least 32/);
    expect(rpcAuthConfig.RPC_AUTH_KEYS_ACCEPTED.parse(` ${KEY_B} ,`)).toBe(` ${KEY_B} ,`);
    expect(() => rpcKeys({ RPC_AUTH_KEY: KEY_A, RPC_AUTH_KEYS_ACCEPTED: "short" })).toThrow(/at least 32/);
  });

  it("a component's credentials are minted once and reused", async () => {
    const creds = componentCredentials(a, "gateway");
    const first = await creds();
    expect(await creds()).toBe(first);
  });

  it("caller tokens: checked when minted, capped at 90 days", async () => {
    await expect(signCallerToken(a, { caller: "bad name", tenants: ["t"], expiresInS: 60 })).rejects.toThrow(
      /caller name/,
    );
    await expect(signCallerToken(a, { caller: "ok", tenants: [], expiresInS: 60 })).rejects.toThrow(
      /at least one tenant/,
    );
    await expect(signCallerToken(a, { caller: "ok", tenants: ["a b"], expiresInS: 60 })).rejects.toThrow(
      /not a tenant id/,
    );
    await expect(
      signCallerToken(a, { caller: "ok", tenants: ["t"], expiresInS: CALLER_TOKEN_MAX_S + 1 }),
    ).rejects.toThrow(/lifetime/);
    const token = await signCallerToken(a, {
      caller: "reporting",
      tenants: ["acme", "globex"],
      expiresInS: 3600,
    });
    await expect(rpcTokenVerifier(a)(bearer(token))).resolves.toEqual({
      kind: "caller",
      subject: "reporting",
      tenants: ["acme", "globex"],
    });
  });
});

describe("the context of a call", () => {
  const relayed = {
    tenant: "acme",
    principal: { userId: "u-1", username: "ada", roles: ["ADMIN"], permissions: ["CATEGORY_READ"] },
    client: { api: "REST", rawInfo: "curl/8" },
  };

  it("a component relays the end user's context", () => {
    const ctx = callContext(
      { kind: "component", subject: "gateway", tenants: undefined },
      new Headers(contextToHeaders(relayed)),
      "trace",
    );
    expect(ctx).toEqual({ ...relayed, traceId: "trace" });
  });

  it("a caller acts as its token's subject, for a tenant its token names, whatever principal headers it sends", () => {
    const caller = { kind: "caller" as const, subject: "reporting", tenants: ["acme", "globex"] };
    const ctx = callContext(
      caller,
      new Headers({ ...contextToHeaders(relayed), "user-agent": "grpc-node-js/1" }),
      "",
    );
    expect(ctx).toEqual({
      tenant: "acme",
      principal: { userId: "reporting", username: "reporting", roles: [], permissions: [] },
      client: { api: "RPC", rawInfo: "curl/8" },
      traceId: "",
    });
    expect(
      callContext(
        caller,
        new Headers({ "user-agent": "grpc-node-js/1", [CONTEXT_HEADERS.tenant]: "globex" }),
        "",
      ),
    ).toMatchObject({
      tenant: "globex",
      client: { api: "RPC", rawInfo: "grpc-node-js/1" },
    });
  });

  it("a caller's tenant: the only one its token names when left out; another one is PERMISSION_DENIED", () => {
    const one = { kind: "caller" as const, subject: "r", tenants: ["acme"] };
    expect(callContext(one, new Headers(), "").tenant).toBe("acme");
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return { kind: (e as AppError).kind, code: (e as AppError).code };
      }
      return expect.unreachable();
    };
    expect(err(() => callContext(one, new Headers({ [CONTEXT_HEADERS.tenant]: "globex" }), ""))).toEqual({
      kind: "forbidden",
      code: "TENANT_NOT_GRANTED",
    });
    const two = { kind: "caller" as const, subject: "r", tenants: ["acme", "globex"] };
    expect(err(() => callContext(two, new Headers(), ""))).toEqual({
      kind: "unauthenticated",
      code: "TENANT_MISSING",
    });
  });
});
