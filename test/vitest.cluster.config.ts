import { testConfig } from "@fop/kit/testing/vitest";
import { mergeConfig } from "vitest/config";

// The cluster tests (cluster/*.test.ts: the soak and the faults under load) run after the system
// tests, one at a time, on an otherwise idle machine: each boots the production topology (2 replicas
// of every service and of the gateway, 3 nats-servers, a Postgres of its own: ~20 processes on 2
// cores), and the soak judges event-loop lag and memory, which another boot beside it would move.
// So do the system tests that judge time under load (EXCLUSIVE): a bystander's p99 while a tenant
// floods renders, a rolling restart of every process under load (96 s alone; beside the other system
// files it passed its 150 s bound one run and not the next), GraphQL's cost limit answering within
// 100 ms while another tenant's GET does too.
export const EXCLUSIVE = [
  "system/picking/documents-load.test.ts",
  "system/robustness/rolling-restart.test.ts",
  "system/api/graphql-limits.test.ts",
];

export default mergeConfig(
  testConfig({ include: ["cluster/**/*.test.ts", ...EXCLUSIVE], timeoutMs: 60_000 }),
  { test: { maxWorkers: 1 } },
);
