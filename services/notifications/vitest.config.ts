import { testConfig } from "@fop/kit/testing/vitest";

export default testConfig();
