import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../testing/db.ts";
import { ensureServiceSchema } from "./admin.ts";
import { serviceRole } from "./orm.ts";

const adminUrl = inject("adminUrl");
const service = `race_${randomBytes(4).toString("hex")}`;
const names = Array.from({ length: 8 }, (_, i) => `fop_t_race_${randomBytes(4).toString("hex")}_${i}`);

afterAll(async () => {
  for (const n of names) await dropDatabase(adminUrl, n);
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`drop role if exists "${serviceRole(service)}"`).finally(() => c.end());
});

describe("ensureServiceSchema", () => {
  it("sets up one service in many databases at once (test files do), the shared role included", async () => {
    const urls = await Promise.all(names.map((n) => createDatabase(adminUrl, n)));
    // A new role: every call races to create it and to set its search_path.
    await Promise.all(urls.map((u) => ensureServiceSchema(u, service)));
    for (const u of urls) {
      const c = new pg.Client({ connectionString: u });
      await c.connect();
      try {
        const { rows } = await c.query(
          "select nspowner::regrole::text as owner from pg_namespace where nspname = $1",
          [service],
        );
        expect(rows).toEqual([{ owner: serviceRole(service) }]);
      } finally {
        await c.end();
      }
    }
  });
});
