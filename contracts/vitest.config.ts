/**
 * The contracts' tests check data (the vocabulary; clients/ is exercised by the services using it):
 * they need neither Postgres nor NATS, so this is vitest's own configuration with the workspaces'
 * `source` condition, not the kit's testConfig (whose global setup starts both).
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
  test: { include: ["src/**/*.test.ts"], pool: "forks", maxWorkers: 2 },
});
