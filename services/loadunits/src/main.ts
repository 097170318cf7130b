import { runMain } from "@fop/kit/service";
import { loadUnitsService } from "./service.ts";

await runMain(loadUnitsService);
