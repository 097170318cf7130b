import { testConfig } from "@fop/kit/testing/vitest";

export default testConfig({ include: ["system/**/*.test.ts", "bench/**/*.test.ts"], timeoutMs: 60_000 });
