import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PERMISSIONS } from "@fop/contracts/permissions";
import { describe, expect, it } from "vitest";
import { principalFromClaims } from "./auth.ts";
import { effectivePermissions, ROLE_PERMISSIONS } from "./permissions.ts";

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

describe("loadOrCreateDevKey", () => {
  it("gives processes starting at once one key, never a half-written file", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fop-dev-key-"));
    const file = path.join(dir, "dev-signing-key.json");
    const script = `const { loadOrCreateDevKey } = await import(${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, "auth.ts")).href)});
      process.stdout.write((await loadOrCreateDevKey(process.argv[1])).publicJwk.kid);`;
    try {
      const kids = await Promise.all(
        Array.from(
          { length: 6 },
          () =>
            new Promise<string>((resolve, reject) =>
              execFile(
                process.execPath,
                ["--conditions=source", "--input-type=module", "-e", script, file],
                (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)),
              ),
            ),
        ),
      );
      expect(new Set(kids).size).toBe(1);
      expect(readdirSync(dir)).toEqual(["dev-signing-key.json"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
