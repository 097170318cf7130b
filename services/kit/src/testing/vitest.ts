/** The vitest configuration every workspace shares (each vitest.config.ts calls this). */
import path from "node:path";
import { defineConfig } from "vitest/config";

const kitSrc = path.resolve(import.meta.dirname, "..");

export function testConfig(opts: { include?: string[]; timeoutMs?: number } = {}) {
  return defineConfig({
    resolve: { conditions: ["source"] },
    ssr: { resolve: { conditions: ["source"], externalConditions: ["source"] } },
    test: {
      include: opts.include ?? ["src/**/*.test.ts", "test/**/*.test.ts"],
      globalSetup: [path.join(kitSrc, "testing/global-setup.ts")],
      setupFiles: [path.join(kitSrc, "testing/tracing.ts")],
      testTimeout: opts.timeoutMs ?? 30_000,
      hookTimeout: 60_000,
      pool: "forks",
      maxWorkers: 2,
    },
  });
}
