import { testConfig } from "@fop/kit/testing/vitest";
import { mergeConfig } from "vitest/config";
import { EXCLUSIVE } from "./vitest.cluster.config.ts";

// support/route-statuses.ts: after the last file, the statuses the routes answered are compared
// with the OpenAPI document.
// The system tests that judge time under load run alone, with the cluster tests
// (vitest.cluster.config.ts, EXCLUSIVE).
export default mergeConfig(
  testConfig({
    include: ["system/**/*.test.ts", "bench/**/*.test.ts", "../deploy/k8s/*.test.ts"],
    timeoutMs: 60_000,
  }),
  { test: { globalSetup: ["support/route-statuses.ts"], exclude: EXCLUSIVE } },
);
