/**
 * The contracts are pure data: their tests need neither Postgres nor NATS, so this is vitest's own
 * configuration with the workspaces' `source` condition, not the kit's testConfig (whose global
 * setup starts both).
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: { include: ["src/**/*.test.ts"], pool: "forks", maxWorkers: 2 },
});
