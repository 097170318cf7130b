/** Authentication (401) and permissions (403) at the gateway. */
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type System, startSystem } from "../../support/system.ts";

let sys: System;
beforeAll(async () => {
  sys = await startSystem();
});
afterAll(() => sys?.close());

async function foreignToken(
  claims: Record<string, unknown>,
  opts: { issuer?: string; audience?: string } = {},
) {
  const { privateKey } = await generateKeyPair("ES256");
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: "someone-else" })
    .setSubject("mallory")
    .setIssuer(opts.issuer ?? "fop-dev")
    .setAudience(opts.audience ?? "fop")
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(privateKey);
}

function expect401(res: { status: number; body: any; headers: Headers }, code: string) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual([expect.objectContaining({ code, summary: expect.any(String) })]);
  expect(res.headers.get("traceresponse")).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
}

describe("401: no valid credential", () => {
  it("without Authorization", async () => {
    expect401(await sys.api("GET", "/api/categories"), "MISSING_TOKEN");
  });

  it("with a non-bearer scheme", async () => {
    expect401(
      await sys.api("GET", "/api/categories", { headers: { authorization: "Basic dXNlcjpwYXNz" } }),
      "MISSING_TOKEN",
    );
  });

  it("with garbage", async () => {
    expect401(await sys.api("GET", "/api/categories", { token: "not.a.jwt" }), "INVALID_TOKEN");
    expect401(await sys.api("GET", "/api/categories", { token: "x".repeat(5000) }), "INVALID_TOKEN");
  });

  it("with an expired token", async () => {
    expect401(
      await sys.api("GET", "/api/categories", { token: await sys.token("acme", { expiresIn: -120 }) }),
      "TOKEN_EXPIRED",
    );
  });

  it("with a token signed by another key", async () => {
    const token = await foreignToken({ tenant: "acme", roles: ["ADMIN"] });
    expect401(await sys.api("GET", "/api/categories", { token }), "INVALID_TOKEN");
  });

  it("with a tampered payload", async () => {
    const [h, , s] = (await sys.token("acme", { permissions: ["CATEGORY_READ"] })).split(".");
    const payload = Buffer.from(
      JSON.stringify({
        tenant: "acme",
        sub: "x",
        roles: ["ADMIN"],
        iss: "fop-dev",
        aud: "fop",
        exp: 9999999999,
      }),
    ).toString("base64url");
    expect401(
      await sys.api("POST", "/api/categories", {
        token: `${h}.${payload}.${s}`,
        body: { nameLocalized: {} },
      }),
      "INVALID_TOKEN",
    );
  });

  it("with an unsigned (alg none) token", async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
    const token = `${enc({ alg: "none", typ: "JWT" })}.${enc({ tenant: "acme", sub: "x", roles: ["ADMIN"], iss: "fop-dev", aud: "fop" })}.`;
    expect401(await sys.api("GET", "/api/categories", { token }), "INVALID_TOKEN");
  });

  it("before validating the body", async () => {
    expect401(await sys.api("POST", "/api/categories", { body: "{not json" }), "MISSING_TOKEN");
  });
});

describe("403: recognized but not permitted", () => {
  it("lacking the operation's permission", async () => {
    const reader = sys.as(await sys.token("acme", { permissions: ["CATEGORY_READ"] }));
    expect((await reader("GET", "/api/categories")).status).toBe(200);
    const denied = await reader("POST", "/api/categories", { nameLocalized: {} });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual([
      expect.objectContaining({
        code: "PERMISSION_DENIED",
        description: expect.stringMatching(/CATEGORY_WRITE/),
      }),
    ]);
    // search needs ADMIN_MODULES_READ, as in the reference
    expect((await reader("POST", "/api/categories/search", { query: {} })).status).toBe(403);
    expect((await reader("GET", "/api/facilities")).status).toBe(403);
  });

  it("is decided before the body is validated", async () => {
    const reader = sys.as(await sys.token("acme", { permissions: ["CATEGORY_READ"] }));
    expect((await reader("POST", "/api/categories", { nameLocalized: 5 })).status).toBe(403);
  });

  it("expands roles into permissions", async () => {
    const viewer = sys.as(await sys.token("acme", { roles: ["VIEWER"] }));
    expect((await viewer("GET", "/api/categories")).status).toBe(200);
    expect((await viewer("POST", "/api/categories/search", { query: {} })).status).toBe(200);
    expect((await viewer("POST", "/api/categories", { nameLocalized: {} })).status).toBe(403);
    const manager = sys.as(await sys.token("acme", { roles: ["MASTER_DATA_MANAGER"] }));
    expect((await manager("POST", "/api/categories", { nameLocalized: {} })).status).toBe(201);
  });

  it("a token without any permission is recognized but may do nothing", async () => {
    const nobody = sys.as(await sys.token("acme", { permissions: [], roles: ["UNKNOWN_ROLE"] }));
    expect((await nobody("GET", "/api/categories")).status).toBe(403);
  });
});

describe("public endpoints need no token", () => {
  it.each(["/healthz", "/readyz", "/api/openapi.json", "/docs/"])("%s", async (p) => {
    expect((await sys.api("GET", p)).status).toBe(200);
  });
});
