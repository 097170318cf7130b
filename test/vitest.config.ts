import { testConfig } from "@fop/kit/testing/vitest";
import { mergeConfig } from "vitest/config";

// support/route-statuses.ts: after the last file, the statuses the routes answered are compared
// with the OpenAPI document.
export default mergeConfig(
  testConfig({ include: ["system/**/*.test.ts", "bench/**/*.test.ts"], timeoutMs: 60_000 }),
  { test: { globalSetup: ["support/route-statuses.ts"] } },
);
