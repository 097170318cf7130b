import { testConfig } from "@fop/kit/testing/vitest";
import { mergeConfig } from "vitest/config";

// The cluster tests (cluster/*.test.ts: the soak and the faults under load) run after the system
// tests, one at a time, on an otherwise idle machine: each boots the production topology (2 replicas
// of every service and of the gateway, 3 nats-servers, a Postgres of its own: ~20 processes on 2
// cores), and the soak judges event-loop lag and memory, which another boot beside it would move.
export default mergeConfig(testConfig({ include: ["cluster/**/*.test.ts"], timeoutMs: 60_000 }), {
  test: { maxWorkers: 1 },
});
