import { testConfig } from "@fop/kit/testing/vitest";

export default testConfig({ include: ["system/**/*.test.ts"], timeoutMs: 60_000 });
