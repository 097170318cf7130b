import { describe, expect, it } from "vitest";
import { principalFromClaims } from "./auth.ts";
import { effectivePermissions, PERMISSIONS, ROLE_PERMISSIONS } from "./permissions.ts";

describe("principalFromClaims", () => {
  it("reads tenant, user, roles and permissions", () => {
    expect(
      principalFromClaims(
        {
          sub: "u1",
          tenant: "acme",
          preferred_username: "ada",
          roles: ["AUDITOR"],
          permissions: "CATEGORY_READ",
        },
        "tenant",
      ),
    ).toEqual({
      tenant: "acme",
      userId: "u1",
      username: "ada",
      roles: ["AUDITOR"],
      permissions: ["AUDIT_READ", "CATEGORY_READ"],
    });
  });

  it("takes the tenant of Identity Platform tokens from firebase.tenant", () => {
    expect(principalFromClaims({ sub: "u1", firebase: { tenant: "acme-x1" } }, "tenant").tenant).toBe(
      "acme-x1",
    );
  });

  it.each([{ sub: "u1" }, { sub: "u1", tenant: "bad tenant!" }, { tenant: "acme" }])(
    "rejects %j",
    (claims) => {
      expect(() => principalFromClaims(claims, "tenant")).toThrow(
        expect.objectContaining({ kind: "unauthenticated" }),
      );
    },
  );
});

describe("roles", () => {
  it("ADMIN holds every permission; unknown roles hold none", () => {
    expect(effectivePermissions(["ADMIN"], [])).toEqual([...PERMISSIONS].sort());
    expect(effectivePermissions(["NOPE"], [])).toEqual([]);
  });
  it("only name known permissions", () => {
    for (const perms of Object.values(ROLE_PERMISSIONS))
      for (const p of perms) expect(PERMISSIONS).toContain(p);
  });
});
